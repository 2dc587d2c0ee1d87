"""The plan: the typed contract between the LLM (or a human) and every drawing stage.

A plan says WHAT the page explains (concepts in dependency order, two comic panels each, the main
thread, ruler, walkthrough, route) and never HOW it looks or which numbers it shows: numbers in
captions are placeholders such as `{D.ttft}` filled from the simulator at render time.

`load_plan(path)` parses and type-checks; `plan_violations(plan, ...)` lists every page rule the
plan breaks (with JSON paths); `check_plan(...)` raises `PlanError` carrying all of them.
Validate a folder's plan with `tujie validate SRC` (or `tujie build`, which does it first).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.errors import PlanError, Violation
from pipeline.sources import Corpus, normalize_text

PLAN_FORMAT = 1
MIN_CONCEPTS, MAX_CONCEPTS = 8, 13
MAX_CAPTION = {"zh": 15, "en": 40}
MAX_BODY_SENTENCES = 4
MIN_ROUTE, MAX_ROUTE = 3, 4

Lang = Literal["zh", "en"]
Variant = Literal["without", "with"]
Progress = Literal["learned", "review", "next"]
SceneKind = Literal[
    "timeline", "kv_blocks", "budget", "queue", "clock", "roofline", "bars", "generic"
]
MetricId = Literal["throughput", "ttft", "itl", "tpot", "e2el"]

PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w]*(?:\.[\w]+)*)\}")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SENTENCE_END = re.compile(r"[。！？!?]+|\.(?=\s|$)")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Stage(_Model):
    """One station of the main thread (e.g. 'queue', 'pick', 'batch', 'GPU step', 'release')."""

    label: str = Field(min_length=1, max_length=24)
    detail: str = Field(default="", max_length=60)


class MainThread(_Model):
    """The loop, pipeline or tension that runs through every concept (P4)."""

    sentence: str = Field(min_length=1)
    kind: Literal["loop", "pipeline", "tension"]
    stages: list[Stage] = Field(min_length=3, max_length=7)


class CastMember(_Model):
    """A fixed character of every diagram (P5): A, B, C old requests, D the newcomer."""

    id: str = Field(pattern=r"^[A-Z]$")
    role: str = Field(min_length=1, max_length=40)
    state: Literal["running", "new", "stored", "freed", "idle"] = "running"


class GlossaryEntry(_Model):
    """A term and its one-sentence definition (P1)."""

    term: str = Field(min_length=1, max_length=40)
    definition: str = Field(min_length=1, max_length=160)
    aliases: list[str] = Field(default_factory=list)


class Citation(_Model):
    """A passage of a source that backs a concept (and any literal number it states)."""

    source: str = Field(min_length=1, description="a source id from sources.json")
    quote: str = Field(min_length=4, max_length=400)


class Panel(_Model):
    """One comic panel: a caption and a scene drawn from a simulator scenario."""

    caption: str = Field(min_length=1)
    scene: SceneKind
    scenario: str | None = Field(default=None, description="a sim scenario id, e.g. 'batching'")
    variant: Variant | None = None
    focus: list[str] = Field(default_factory=list, description="cast ids to highlight")
    bubble: str | None = Field(default=None, description="speech bubble (generic scene)")
    labels: list[str] = Field(default_factory=list, max_length=4, description="generic boxes")


class Concept(_Model):
    """One card: the concept, the trouble it fixes, how, and what it costs (P6, P7)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1, max_length=20)
    name_en: str = Field(min_length=1, max_length=48)
    solves_problem_of: str | None = Field(
        default=None, description="id of the earlier concept whose problem this one fixes"
    )
    problem_left: str = Field(
        min_length=1, max_length=60, description="the problem this concept leaves for the next"
    )
    body: str = Field(min_length=1, description="at most 4 sentences")
    trouble: Panel
    fix: Panel
    solves: str = Field(min_length=1, max_length=60)
    costs: str = Field(min_length=1, max_length=60)
    terms: list[str] = Field(default_factory=list, description="glossary terms it introduces")
    citations: list[Citation] = Field(default_factory=list)
    progress: Progress | None = None
    technique: str | None = Field(default=None, description="sim sweep technique id (ruler)")


class RulerMetric(_Model):
    """One metric of the ruler (P8)."""

    id: MetricId
    name: str = Field(min_length=1, max_length=24)
    better: Literal["higher", "lower"]
    definition: str = Field(min_length=1, max_length=120)


class Ruler(_Model):
    sentence: str = Field(min_length=1)
    metrics: list[RulerMetric] = Field(min_length=2, max_length=3)


class Walkthrough(_Model):
    """The zero-background section (P9) for the concept the reader is stuck on."""

    concept: str
    intro: str = Field(min_length=1)


class RouteStop(_Model):
    """One stop of the learning route (P10); the URL must come from the sources."""

    title: str = Field(min_length=1, max_length=120)
    url: str = Field(pattern=r"^https?://")
    why: str = Field(min_length=1, max_length=120)


class Meta(_Model):
    """How the plan was made."""

    made_by: Literal["hand-reviewed", "llm"]
    model: str | None = None
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}")
    source_hash: str | None = None
    path: str | None = Field(default=None, description="llm path: 'direct' or 'notes'")
    usage: dict[str, float] | None = None
    note: str = ""


class Plan(_Model):
    """The whole page, as content. See the module docstring."""

    format: int = PLAN_FORMAT
    lang: Lang = "zh"
    title: str = Field(min_length=1, max_length=40)
    takeaway: str = Field(min_length=1, description="the one-sentence conclusion (P2)")
    main_thread: MainThread
    cast: list[CastMember] = Field(min_length=1, max_length=6)
    glossary: list[GlossaryEntry] = Field(min_length=1)
    concepts: list[Concept] = Field(min_length=MIN_CONCEPTS, max_length=MAX_CONCEPTS)
    ruler: Ruler
    walkthrough: Walkthrough
    route: list[RouteStop] = Field(min_length=MIN_ROUTE, max_length=MAX_ROUTE)
    meta: Meta

    def concept(self, concept_id: str) -> Concept | None:
        return next((c for c in self.concepts if c.id == concept_id), None)

    def panels(self) -> Iterable[tuple[str, Concept, Panel]]:
        """(JSON path, concept, panel) for every comic panel, in page order."""
        for i, c in enumerate(self.concepts):
            yield f"concepts[{i}].trouble", c, c.trouble
            yield f"concepts[{i}].fix", c, c.fix


# ---------------------------------------------------------------------------------------------
# Loading


def _pydantic_path(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def violations_from_validation_error(err: ValidationError) -> list[Violation]:
    return [Violation(_pydantic_path(tuple(e["loc"])), e["msg"]) for e in err.errors()]


def parse_plan(data: object, file: str | Path | None = None) -> Plan:
    """Type-check a decoded plan; raise `PlanError` listing every field problem with its path."""
    try:
        return Plan.model_validate(data)
    except ValidationError as err:
        raise PlanError(file, violations_from_validation_error(err)) from None


def load_plan(path: Path) -> Plan:
    """Read and type-check `plan.json`. Page rules are checked separately (`check_plan`)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlanError(path, [Violation("(file)", "not found")]) from None
    except (OSError, UnicodeDecodeError) as err:
        raise PlanError(path, [Violation("(file)", f"cannot be read as UTF-8: {err}")]) from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        where = f"line {err.lineno} column {err.colno}"
        raise PlanError(
            path, [Violation("(json)", f"not valid JSON at {where}: {err.msg}")]
        ) from None
    return parse_plan(data, path)


def plan_json_schema() -> dict[str, object]:
    """The JSON Schema of plan.json (`tujie schema`)."""
    return Plan.model_json_schema()


def dump_plan(plan: Plan) -> str:
    """Canonical JSON text of a plan (stable key order, UTF-8, trailing newline)."""
    return (
        json.dumps(plan.model_dump(mode="json", exclude_none=False), ensure_ascii=False, indent=2)
        + "\n"
    )


# ---------------------------------------------------------------------------------------------
# Text rules


def fill_placeholders(text: str, values: Mapping[str, str]) -> str:
    """Replace `{A.ttft}`-style placeholders; unknown names stay as they are (and are reported)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text)


def caption_length(text: str, lang: str) -> int:
    """H1's measure: Chinese counts every non-space character; English counts characters."""
    if lang == "zh":
        return len(re.sub(r"\s+", "", text))
    return len(text)


def count_sentences(text: str) -> int:
    parts = [p for p in SENTENCE_END.split(text.strip()) if p.strip()]
    return len(parts)


def numbers_in(text: str) -> list[str]:
    """Literal numbers of a text, ignoring placeholders (those are bound to the simulator)."""
    return NUMBER.findall(PLACEHOLDER.sub("", text))


# ---------------------------------------------------------------------------------------------
# Page rules

ValuesFor = Callable[[Panel], Mapping[str, str]]


def plan_violations(
    plan: Plan,
    corpus: Corpus | None = None,
    *,
    values_for: ValuesFor | None = None,
    scenario_ids: set[str] | None = None,
) -> list[Violation]:
    """Every page rule the plan breaks. `corpus` enables the source checks (quotes, URLs,
    numbers); `values_for(panel)` fills caption placeholders so H1 is checked after filling;
    `scenario_ids` are the simulator scenarios a panel may name."""
    out: list[Violation] = []
    out += _id_rules(plan)
    out += _chain_rules(plan)
    out += _panel_rules(plan, values_for, scenario_ids)
    out += _prose_rules(plan)
    out += _glossary_rules(plan)
    if corpus is not None:
        out += _source_rules(plan, corpus)
    return out


def check_plan(
    plan: Plan,
    corpus: Corpus | None = None,
    *,
    file: str | Path | None = None,
    values_for: ValuesFor | None = None,
    scenario_ids: set[str] | None = None,
) -> Plan:
    """Raise `PlanError` with every violation, or return the plan unchanged."""
    found = plan_violations(plan, corpus, values_for=values_for, scenario_ids=scenario_ids)
    if found:
        raise PlanError(file, found)
    return plan


def _duplicates(items: list[str]) -> set[str]:
    seen: set[str] = set()
    return {x for x in items if x in seen or seen.add(x)}  # type: ignore[func-returns-value]


def _id_rules(plan: Plan) -> list[Violation]:
    out = []
    for dup in sorted(_duplicates([c.id for c in plan.concepts])):
        i = [c.id for c in plan.concepts].index(dup)
        out.append(Violation(f"concepts[{i}].id", f"duplicate concept id '{dup}'"))
    for dup in sorted(_duplicates([m.id for m in plan.cast])):
        out.append(Violation("cast", f"duplicate cast id '{dup}'"))
    terms = [g.term for g in plan.glossary]
    for dup in sorted(_duplicates(terms)):
        out.append(Violation(f"glossary[{terms.index(dup)}].term", f"duplicate term '{dup}'"))
    if plan.walkthrough.concept not in {c.id for c in plan.concepts}:
        out.append(
            Violation("walkthrough.concept", f"unknown concept '{plan.walkthrough.concept}'")
        )
    techniques = [c.technique for c in plan.concepts if c.technique]
    for dup in sorted(_duplicates(techniques)):
        out.append(Violation("concepts", f"technique '{dup}' is claimed by two concepts"))
    return out


def _chain_rules(plan: Plan) -> list[Violation]:
    """P6: each concept fixes the problem of an EARLIER concept (the first fixes none)."""
    out = []
    index = {c.id: i for i, c in enumerate(plan.concepts)}
    for i, c in enumerate(plan.concepts):
        ref = c.solves_problem_of
        path = f"concepts[{i}].solves_problem_of"
        if i == 0:
            if ref is not None:
                out.append(Violation(path, "the first concept cannot fix an earlier one's problem"))
            continue
        if ref is None:
            out.append(Violation(path, "must name the earlier concept whose problem this fixes"))
        elif ref not in index:
            out.append(Violation(path, f"unknown concept '{ref}'"))
        elif index[ref] >= i:
            out.append(Violation(path, f"'{ref}' is not earlier: the chain must point backwards"))
    return out


def _panel_rules(
    plan: Plan, values_for: ValuesFor | None, scenario_ids: set[str] | None
) -> list[Violation]:
    out = []
    limit = MAX_CAPTION[plan.lang]
    cast_ids = {m.id for m in plan.cast}
    for path, _concept, panel in plan.panels():
        values = values_for(panel) if values_for and panel.scenario else {}
        for field, text in [("caption", panel.caption), ("bubble", panel.bubble or "")]:
            if not text:
                continue
            for name in placeholders(text):
                if panel.scenario is None:
                    out.append(
                        Violation(f"{path}.{field}", f"placeholder {{{name}}} needs a scenario")
                    )
                elif values_for is not None and name not in values:
                    out.append(Violation(f"{path}.{field}", f"unknown placeholder {{{name}}}"))
            filled = fill_placeholders(text, values)
            n = caption_length(filled, plan.lang)
            if n > limit:
                out.append(
                    Violation(
                        f"{path}.{field}", f"{n} characters after filling, limit {limit} (H1)"
                    )
                )
            if numbers_in(text):
                out.append(
                    Violation(
                        f"{path}.{field}",
                        "literal number in a caption: bind it to the simulator with a placeholder",
                    )
                )
        for j, label in enumerate(panel.labels):
            if caption_length(label, plan.lang) > limit:
                out.append(Violation(f"{path}.labels[{j}]", f"longer than {limit} characters"))
        if panel.scene != "generic" and panel.scenario is None:
            out.append(Violation(f"{path}.scenario", f"a '{panel.scene}' scene needs a scenario"))
        if panel.scenario is not None:
            if scenario_ids is not None and panel.scenario not in scenario_ids:
                out.append(Violation(f"{path}.scenario", f"unknown scenario '{panel.scenario}'"))
            if panel.variant is None:
                out.append(Violation(f"{path}.variant", "name the variant: 'without' or 'with'"))
        for who in panel.focus:
            if who not in cast_ids:
                out.append(Violation(f"{path}.focus", f"'{who}' is not in the cast"))
    return out


def _prose_rules(plan: Plan) -> list[Violation]:
    out = []
    if count_sentences(plan.takeaway) != 1:
        out.append(Violation("takeaway", "must be exactly one sentence (P2)"))
    if count_sentences(plan.main_thread.sentence) != 1:
        out.append(Violation("main_thread.sentence", "must be exactly one sentence (P4)"))
    for i, c in enumerate(plan.concepts):
        n = count_sentences(c.body)
        if n > MAX_BODY_SENTENCES:
            out.append(
                Violation(
                    f"concepts[{i}].body", f"{n} sentences, at most {MAX_BODY_SENTENCES} (P3)"
                )
            )
        for field in ("solves", "costs"):
            if "\n" in getattr(c, field):
                out.append(Violation(f"concepts[{i}].{field}", "must be a single line (P7)"))
    return out


def _glossary_rules(plan: Plan) -> list[Violation]:
    out = []
    terms = {g.term for g in plan.glossary}
    for i, g in enumerate(plan.glossary):
        if count_sentences(g.definition) != 1:
            out.append(Violation(f"glossary[{i}].definition", "must be one sentence (P1)"))
    for i, c in enumerate(plan.concepts):
        for t in c.terms:
            if t not in terms:
                out.append(Violation(f"concepts[{i}].terms", f"'{t}' has no glossary entry"))
    return out


def _source_rules(plan: Plan, corpus: Corpus) -> list[Violation]:
    out = []
    all_quotes: list[str] = []
    for i, c in enumerate(plan.concepts):
        for j, cit in enumerate(c.citations):
            path = f"concepts[{i}].citations[{j}]"
            if corpus.source(cit.source) is None:
                out.append(Violation(f"{path}.source", f"unknown source '{cit.source}'"))
            elif corpus.find_quote(cit.source, cit.quote) is None:
                out.append(Violation(f"{path}.quote", f"not found in source '{cit.source}'"))
            else:
                all_quotes.append(cit.quote)
    for k, stop in enumerate(plan.route):
        if not corpus.has_url(stop.url):
            out.append(Violation(f"route[{k}].url", f"not from the sources: {stop.url}"))
    everything = normalize_text(" ".join(all_quotes))
    for i, c in enumerate(plan.concepts):
        mine = normalize_text(" ".join(q.quote for q in c.citations if q.quote in all_quotes))
        for field in ("body", "solves", "costs", "problem_left"):
            for num in numbers_in(getattr(c, field)):
                if num not in mine:
                    out.append(
                        Violation(
                            f"concepts[{i}].{field}", f"number {num} is in no cited quote (H5)"
                        )
                    )
    page_fields = [("takeaway", plan.takeaway), ("main_thread.sentence", plan.main_thread.sentence)]
    page_fields += [
        (f"glossary[{i}].definition", g.definition) for i, g in enumerate(plan.glossary)
    ]
    page_fields += [(f"route[{k}].why", s.why) for k, s in enumerate(plan.route)]
    page_fields += [
        ("walkthrough.intro", plan.walkthrough.intro),
        ("ruler.sentence", plan.ruler.sentence),
    ]
    for path, text in page_fields:
        for num in numbers_in(text):
            if num not in everything:
                out.append(Violation(path, f"number {num} is in no cited quote (H5)"))
    return out
