"""The field registry (FIELDS.md): one page engine, many subjects.

A field (`base.Field`) is the unit that makes a subject drawable: its cast, scenarios, scene
kinds, ruler, walkthrough and prompt section. The page engine — plan, validate, sim, render,
check, review — reaches fields only through this module, so the prompt, the validator and the
renderer read the same registry. A concept names its field (`concept.field`; none = serving,
the first field, so plans written before fields keep their meaning).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pipeline.draw.generic import GENERIC, GENERIC_SCENE
from pipeline.draw.scene import SceneSpec
from pipeline.errors import InputError
from pipeline.fields.base import CompareRow, Field, Json, Run, Symbol, WalkStep
from pipeline.fields.detect import Detection
from pipeline.fields.general import FIELD as GENERAL_FIELD
from pipeline.fields.serving import FIELD as SERVING
from pipeline.fields.training import FIELD as TRAINING
from pipeline.fields.vocabulary import Term, avoided_words
from pipeline.fields.vocabulary import page_glossary as merge_glossary
from pipeline.plan.catalogue import DEFAULT_FIELD, Catalogue, Catalogues
from pipeline.plan.model import GlossaryEntry

if TYPE_CHECKING:
    from pipeline.artifacts.sim import SimResults
    from pipeline.artifacts.sources import Corpus
    from pipeline.config import PageConfig
    from pipeline.errors import Violation
    from pipeline.fields.cache import CacheStats
    from pipeline.plan.model import Concept, Panel, Plan

FIELDS: dict[str, Field] = {
    SERVING.id: SERVING, TRAINING.id: TRAINING, GENERAL_FIELD.id: GENERAL_FIELD
}

__all__ = [
    "FIELDS", "GENERIC", "GENERIC_SCENE", "CompareRow", "Field", "Run", "WalkStep", "catalogues",
    "colours_cast", "concept_field", "fallback_catalogue", "page_fields", "page_words",
    "draw_panel_of", "field", "panel_run", "run_result", "scene_spec", "symbols", "walkthrough",
]  # fmt: skip


def field(field_id: str | None) -> Field:
    """The registered field `field_id` (none: serving); InputError naming the known ones."""
    wanted = field_id or DEFAULT_FIELD
    if wanted not in FIELDS:
        raise InputError(f"unknown field '{wanted}' (known: {', '.join(FIELDS)})")
    return FIELDS[wanted]


def concept_field(concept: Concept) -> str:
    """The id of the field a concept belongs to (none named: serving)."""
    return concept.field or DEFAULT_FIELD


def catalogues(field_ids: Iterable[str] | None = None) -> Catalogues:
    """The catalogues of `field_ids` (default: every registered field), in registry order."""
    wanted = set(FIELDS) if field_ids is None else set(field_ids)
    return Catalogues({fid: f.catalogue() for fid, f in FIELDS.items() if fid in wanted})


def scene_spec(field_id: str | None, kind: str) -> SceneSpec | None:
    """How `kind` is drawn for a concept of `field_id` (generic for every field), or None."""
    if kind == GENERIC:
        return GENERIC_SCENE
    known = FIELDS.get(field_id or DEFAULT_FIELD)
    return known.scenes().get(kind) if known is not None else None


def panel_run(
    plan: Plan, concept: Concept, panel: Panel, variant: str | None = None
) -> Run | None:
    """The engine run that draws a concept's panel, by its field's rules (None: no run)."""
    known = FIELDS.get(concept_field(concept))
    run = known.panel_run(plan, panel, variant) if known is not None else None
    return run


def run_result(run: Run, stats: CacheStats | None = None) -> Json:
    """The run's result from its field's engine (cached by content)."""
    return field(run.field).run(run, stats)


def run_view(plan: Plan, concept: Concept, panel: Panel, sim: SimResults) -> Any:
    """The typed view of the panel's run, as its field's scenes read it (None: not run)."""
    run = panel_run(plan, concept, panel)
    if run is None:
        return None
    result = sim.trace_json.get(run.key)
    return field(run.field).view(result) if result is not None else None


def panel_note_of(plan: Plan, concept: Concept, sim: SimResults, lang: str) -> str:
    """The line under a card's panels (how their runs keep time, what they change of the
    cast; "" when nothing needs saying), from the concept's field."""
    views = [
        (side, panel.scene, view)
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix))
        if (view := run_view(plan, concept, panel, sim)) is not None
    ]
    return field(concept_field(concept)).panel_note(views, lang)


def run_values(
    plan: Plan, concept: Concept, panel: Panel, sim: SimResults
) -> Mapping[str, str]:
    """The numbers a panel's caption may bind, from its run (empty when it has none)."""
    run = panel_run(plan, concept, panel)
    result = sim.trace_json.get(run.key) if run is not None else None
    return field(run.field).values(result) if run is not None and result is not None else {}


def draw_panel_of(
    plan: Plan,
    concept: Concept,
    side: str,
    panel: Panel,
    sim: SimResults,
    *,
    lang: str,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    path: str | None = None,
) -> str:
    """One comic panel, drawn by its concept's field: the scene of that field (or generic) from
    the panel's run. A scene the field does not have, or one that cannot draw the panel's
    scenario, is refused (the validator says the same with the JSON path)."""
    from pipeline.draw.panel import draw_panel

    fid = concept_field(concept)
    spec = scene_spec(fid, panel.scene)
    owner = f"card {concept.id}, panel {side}"
    if spec is None:
        raise InputError(f"{owner}: the {fid} field has no '{panel.scene}' scene")
    entry = field(fid).catalogue().scenario(panel.scenario)
    if spec is not GENERIC_SCENE and entry is not None and panel.scene not in entry.scenes:
        raise InputError(
            f"{owner}: a '{panel.scene}' scene cannot draw scenario '{panel.scenario}' "
            f"(drawn by: {', '.join(entry.scenes)})"
        )
    return draw_panel(
        concept,
        side,  # type: ignore[arg-type]  # "trouble" or "fix", as the plan names them
        panel,
        run_view(plan, concept, panel, sim),
        run_values(plan, concept, panel, sim),
        lang=lang,
        scene=spec,
        overrides=overrides or {},
        path=path,
        partner=partner_view(plan, concept, side, sim),
    )


def partner_view(plan: Plan, concept: Concept, side: str, sim: SimResults) -> Any:
    """The run of the card's other panel when it draws the same scenario (its other variant, or
    the same one), so a scene can show both panels at one moment; for two worked-example panels
    the other panel and its run (`PanelPartner`), so equal numbers are drawn equally long; else
    None."""
    mine = concept.trouble if side == "trouble" else concept.fix
    other = concept.fix if side == "trouble" else concept.trouble
    if mine.scenario and other.scenario == mine.scenario:
        return run_view(plan, concept, other, sim)
    if (mine.scenario and other.scenario and mine.scene == other.scene
            and field(concept_field(concept)).cross_partner(mine.scene)):
        return run_view(plan, concept, other, sim)
    if mine.example and other.example:
        # two worked examples: the other panel with its numbers (one scale for both)
        from pipeline.draw.scene import PanelPartner

        view = run_view(plan, concept, other, sim)
        return PanelPartner(other, view) if view is not None else None
    return None


def chosen_fields(corpus: Corpus, config: PageConfig) -> Detection:
    """The fields a folder's page is drawn with: page.toml's `field` when it names any (checked
    against the registry), else those detected from the articles (`pipeline.fields.detect`);
    the general field is always among them."""
    from pipeline.errors import ConfigError
    from pipeline.fields.detect import GENERAL, detect

    terms = {fid: f.terms for fid, f in FIELDS.items()}
    if config.field:
        unknown = [f for f in config.field if f not in FIELDS]
        if unknown:
            raise ConfigError(
                f"page.toml: field: unknown field '{unknown[0]}' (known: {', '.join(FIELDS)}; "
                "`tujie fields` lists them)"
            )
        found = detect(corpus, terms, FIELDS)
        named = tuple(dict.fromkeys([*config.field, GENERAL]))
        return Detection(found.scores, tuple(f for f in named if f in FIELDS), found.words, True)
    found = detect(corpus, terms, FIELDS)
    return Detection(found.scores, tuple(f for f in found.chosen if f in FIELDS), found.words)


def fallback_catalogue(
    scenarios: Mapping[str, str], values_for: Callable[[Panel], Mapping[str, str]] | None
) -> Catalogue:
    """A serving catalogue from scenario descriptions alone, with the placeholders `values_for`
    fills (for callers that do not run the simulator)."""
    from pipeline.fields.serving.catalogue import fallback_catalogue as serving_fallback

    return serving_fallback(scenarios, values_for)


def plan_rules(plan: Plan, corpus: Corpus | None) -> list[Violation]:
    """Every registered field's own rules (worked examples, cited effects, ...), with paths,
    and the page's one vocabulary: no other word for a term its fields' pictures write."""
    from pipeline.plan.rules import reader_prose

    out = [v for f in FIELDS.values() for v in f.plan_rules(plan, corpus)]
    return out + avoided_words(reader_prose(plan), page_vocabulary(plan), plan.glossary)


def card_rules(plan: Plan, sim: SimResults) -> list[Violation]:
    """Each card's pictures against its field's `card_rules`, from the runs in `sim`."""
    out: list[Violation] = []
    for i, concept in enumerate(plan.concepts):
        known = FIELDS.get(concept_field(concept))
        if known is None:
            continue
        views = [run_view(plan, concept, p, sim) for p in (concept.trouble, concept.fix)]
        out += known.card_rules(f"concepts[{i}]", concept, *views)
    return out


def page_vocabulary(plan: Plan) -> list[Term]:
    """The words the page's fields' pictures write (`Field.vocabulary`), in registry order."""
    return [t for fid in page_fields(plan) for t in FIELDS[fid].vocabulary.get(plan.lang, ())]


def page_glossary(plan: Plan) -> list[GlossaryEntry]:
    """The page's glossary: the plan's, completed by its fields' picture words
    (`pipeline.fields.vocabulary.page_glossary`)."""
    return merge_glossary(plan.glossary, page_vocabulary(plan))


def symbols(field_ids: Iterable[str]) -> list[Symbol]:
    """The shared drawings the page's fields `<use>`, in registry order."""
    wanted = set(field_ids)
    return [s for fid, f in FIELDS.items() if fid in wanted for s in f.symbols()]


def page_fields(plan: Plan) -> list[str]:
    """The fields a plan draws with, in registry order (serving when a concept names none)."""
    used = {concept_field(c) for c in plan.concepts}
    return [fid for fid in FIELDS if fid in used]


def colours_cast(plan: Plan) -> bool:
    """Whether any field the plan draws with colours its cast by state (`Field.cast_colours`)."""
    return any(FIELDS[fid].cast_colours for fid in page_fields(plan))


def page_words(plan: Plan, lang: str) -> Mapping[str, str]:
    """The page's own sentences its one field says otherwise (`Field.page_words`); a page that
    mixes fields keeps the shared ones."""
    used = page_fields(plan)
    return FIELDS[used[0]].page_words.get(lang, {}) if len(used) == 1 else {}


def walkthrough(
    plan: Plan, concept: Concept, sim: SimResults, lang: str
) -> tuple[list[WalkStep], list[CompareRow]] | None:
    """The stuck concept step by step, by its field (None: nothing to tell it from)."""
    known = FIELDS.get(concept_field(concept))
    return known.walkthrough(plan, concept, sim, lang) if known is not None else None


def sweeps(field_ids: Sequence[str], stats: CacheStats | None = None) -> dict[str, Json]:
    """Each field's measured sweep (the ruler's data), by field id."""
    out: dict[str, Json] = {}
    for fid in field_ids:
        measured = field(fid).sweep(stats)
        if measured is not None:
            out[fid] = measured
    return out
