"""The general field: any subject a reader brings, drawn from worked examples whose numbers are
quoted, illustrative or computed by tujie (FIELDS.md).

Everything about it in one place: the arithmetic (`formula.py`), a worked example evaluated
(`example.py`), its scene kinds and their roles (`roles.py`, `scenes/`), its rules (`rules.py`),
the walkthrough (a derived number computed step by step) and its prompt section
(`prompts/fields/general.j2`). Its ruler is cited, not measured: each row's `effects`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pipeline.draw.scene import SceneSpec
from pipeline.errors import Violation
from pipeline.fields.base import CompareRow, Field, Json, Run, WalkStep
from pipeline.fields.general.example import ExampleError, ExampleView, evaluate_example
from pipeline.fields.general.roles import GENERAL_SCENES, role_text
from pipeline.fields.general.rules import (
    MIN_EFFECT_ROWS,
    effect_violations,
    example_violations,
    panel_violations,
)
from pipeline.plan.catalogue import Catalogue
from pipeline.plan.model import Panel, Plan, WorkedExample

if TYPE_CHECKING:
    from pipeline.artifacts.sim import SimResults
    from pipeline.artifacts.sources import Corpus
    from pipeline.fields.cache import CacheStats
    from pipeline.plan.model import Concept

FIELD_ID = "general"
EXAMPLE_VARIANT = "example"


@cache
def _scenes() -> dict[str, SceneSpec]:
    from pipeline.fields.general.scenes import SCENE_DRAWINGS, WORDS

    return {
        kind: SceneSpec(kind, scene.shows, SCENE_DRAWINGS[kind], WORDS)
        for kind, scene in GENERAL_SCENES.items()
    }


class GeneralField(Field):
    id = FIELD_ID
    title = "any subject (worked examples)"
    page_words = {
        "zh": {
            "ruler_legend": "每一行是一招：让哪项指标变好、哪项变差，方向出自所引原文，各行比的对象是各自原文里的做法。",
            "illustrative_note": "标着“引自原文”的图，数字照引原文（原文自己的统计、测量或它举的例子，原文说是示意的仍是示意）；"
            "标着“据原文算”的图，有的数是本页只用原文的数按公式算出的，原文里未必写着；"
            "标着“示意值”的图和表用小算例：有的数照引原文，其余是取整的示意数或由本页按公式算出，"
            "便于手算核对，不是实测。",
        },
        "en": {
            "ruler_legend": "One row per trick: which metric gets better, which gets worse, each "
            "direction as the cited source says, against what that source compares it with.",
            "illustrative_note": "Diagrams tagged “quoted” write only numbers quoted from the "
            "articles (their own surveys, measurements or worked examples: what an article calls "
            "illustrative stays illustrative); diagrams tagged “from quotes” also write numbers "
            "this page computed from those alone, which an article may not print; "
            "diagrams and tables tagged “illustrative” use small worked examples: some numbers "
            "quoted, the rest chosen small and round or computed by this page, small enough to "
            "check by hand, and not measurements.",
        },
    }

    def scenes(self) -> Mapping[str, SceneSpec]:
        return _scenes()

    def catalogue(self) -> Catalogue:
        return Catalogue(
            scene_shows={kind: s.shows for kind, s in GENERAL_SCENES.items()}, field=FIELD_ID
        )

    def prompt_section(self, lang: str, catalogue: Catalogue) -> str:
        from pipeline.plan.prompting import render_prompt

        return render_prompt(
            "fields/general.j2",
            scenes=list(GENERAL_SCENES.values()),
            role_text=role_text,
            min_rows=MIN_EFFECT_ROWS,
        )

    def panel_run(self, plan: Plan, panel: Panel, variant: str | None = None) -> Run | None:
        example = plan.example(panel.example)
        if example is None or panel.scene not in GENERAL_SCENES:
            return None
        content = example.model_dump_json()
        return Run(example.id, EXAMPLE_VARIANT, field=FIELD_ID, content=content)

    def run(self, run: Run, stats: CacheStats | None = None) -> Json:
        try:
            return evaluate_example(WorkedExample.model_validate_json(run.content))
        except ExampleError as err:
            from pipeline.errors import InputError

            raise InputError(f"worked example '{run.scenario}': {err}") from None

    def run_content(self, run: Run) -> str:
        return run.content

    def view(self, result: Json) -> Any:
        return ExampleView.from_json(result)

    def values(self, result: Json) -> Mapping[str, str]:
        return ExampleView.from_json(result).values()

    def numbers(self, result: Json) -> list[tuple[str, str, str, str]]:
        view = ExampleView.from_json(result)
        return [(q.name, q.label, q.text, q.unit) for q in view.quantities.values()]

    def plan_rules(self, plan: Plan, corpus: Corpus | None) -> list[Violation]:
        out = example_violations(plan, corpus) + effect_violations(plan, corpus)
        for path, concept, panel in plan.panels():
            if (concept.field or "") == FIELD_ID:
                out += panel_violations(path, panel, plan)
        return out

    def walkthrough(
        self, plan: Plan, concept: Concept, sim: SimResults, lang: str
    ) -> tuple[list[WalkStep], list[CompareRow]] | None:
        from pipeline.fields.general.scenes import draw_worked_step

        views = []
        for panel in (concept.trouble, concept.fix):
            run = self.panel_run(plan, panel)
            result = sim.trace_json.get(run.key) if run is not None else None
            views.append(ExampleView.from_json(result) if result is not None else None)
        told = views[1] or views[0]
        if told is None or not told.order:
            return None
        steps = [
            WalkStep(k + 1, told.quantities[name].worked,
                     draw_worked_step(told, name, lang=lang, seed_id=f"{concept.id}-{k}"))
            for k, name in enumerate(told.order)
        ]
        return steps, compare_rows(concept, views[0], views[1])


def compare_rows(
    concept: Concept, before: ExampleView | None, after: ExampleView | None
) -> list[CompareRow]:
    """The trouble panel's numbers against the fix panel's: the quantities both examples name
    (two examples), or each panel's own shown quantities (one example)."""
    if before is None or after is None:
        return []
    if before.id != after.id:
        common = [n for n in after.quantities if n in before.quantities]
        # what the two examples share unchanged and no panel draws (the cache's size, its line)
        # compares nothing: the table keeps the rows that differ and those a picture shows
        # (reader cc7 met seven equal rows before the one that answered the question)
        drawn = {n for p in (concept.trouble, concept.fix) for e in p.show for n in e.quantities}
        kept = [n for n in common if n in drawn
                or before.quantities[n].text != after.quantities[n].text]
        return [
            CompareRow(f"{after.quantities[n].label}" + _unit(after.quantities[n].unit),
                       before.quantities[n].text, after.quantities[n].text)
            for n in (kept or common)
        ]
    rows = []
    shown = [[n for e in p.show for n in e.quantities] for p in (concept.trouble, concept.fix)]
    for name in dict.fromkeys(shown[0] + shown[1]):
        q = after.quantities[name]
        rows.append(CompareRow(q.label + _unit(q.unit),
                               q.text if name in shown[0] else "-",
                               q.text if name in shown[1] else "-"))
    return rows


def _unit(unit: str) -> str:
    return f" ({unit})" if unit else ""


FIELD = GeneralField()
