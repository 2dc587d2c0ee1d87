"""The training field: training a model on many GPUs — pipeline schedules, sharded model
states, recomputation, tensor parallelism, gradient all-reduce, scaling out — drawn from runs
of the bundled training simulator (`python -m sim train`, SIM-TRAINING.md).

Its cast, in LOOK.md's words: the GPUs are the characters — the chip with a face (awake while
it computes, asleep when it idles) named GPU 0, GPU 1, ... — and the micro-batches are the
beans, small cartoon characters with their number on the body (1, 2, ... as a reader counts),
orange while they wait to enter the pipeline; the same shape and size everywhere.

Everything about it in one place: the scenarios and the ruler's sweep beside the engine
(`sim.presets.training`, `sim.presets.training_sweep`), the engine runs (`engine.py`), the typed
view of a run (`view.py`) and the caption numbers (`values.py`), the registry data
(`catalogue.py`), the scenes (`scenes/`), the walkthrough (`walkthrough.py`, `steps.py`), the
review's numbers (`numbers.py`), the drawing demo (`showcase.py`, `demo.py`) and the prompt
section (`prompts/fields/training.j2`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pipeline.artifacts.sim import TechniqueView
from pipeline.draw.scene import SceneSpec
from pipeline.fields.base import CompareRow, Field, Json, Run, WalkStep
from pipeline.fields.training import engine
from pipeline.fields.training.catalogue import FIELD_ID, SCENE_SHOWS, build_catalogue
from pipeline.fields.training.values import training_values
from pipeline.fields.training.view import TrainingView
from pipeline.fields.training.vocabulary import VOCABULARY
from pipeline.plan.catalogue import Catalogue
from pipeline.plan.model import Panel
from pipeline.render.strings import simulator_note

if TYPE_CHECKING:
    from pipeline.artifacts.sim import SimResults
    from pipeline.errors import Violation
    from pipeline.fields.cache import CacheStats
    from pipeline.plan.model import Concept, Plan


@cache
def _scenes() -> dict[str, SceneSpec]:
    from pipeline.fields.training.scenes import (
        division,
        memory,
        pipeline,
        ring,
        scaling,
        step_bar,
    )
    from pipeline.fields.training.scenes.common import WORDS

    modules = {"pipeline": pipeline, "memory": memory, "ring": ring, "step_bar": step_bar,
               "scaling": scaling, "division": division}
    return {kind: SceneSpec(kind, SCENE_SHOWS[kind], m.draw, WORDS) for kind, m in modules.items()}


# What a folder about training at scale says (`pipeline.fields.detect`): the parallelisms, the
# sharded model states, the schedules and the collectives; "tensor parallelism" and
# "all-reduce" weigh little, since serving articles use them too.
TRAINING_TERMS: dict[str, float] = {
    "training": 0.5, "data parallelism": 2.0, "pipeline parallelism": 2.0,
    "tensor parallelism": 0.5, "ZeRO": 2.0, "FSDP": 2.0, "all-reduce": 0.5, "micro-batch": 2.0,
    "micro-batches": 2.0, "gradient": 1.0, "gradients": 1.0, "backward pass": 1.5,
    "optimizer states": 2.0, "recomputation": 2.0, "MFU": 2.0, "1F1B": 2.0, "GPipe": 2.0,
    "训练": 0.5, "数据并行": 2.0, "流水线并行": 2.0, "梯度": 1.0, "微批": 2.0, "重计算": 2.0,
    "优化器状态": 2.0,
}  # fmt: skip


class TrainingField(Field):
    id = FIELD_ID
    title = "training at scale (parallelism, sharded memory, collectives)"
    terms = TRAINING_TERMS
    vocabulary = VOCABULARY
    # the footer's note names this field's simulator (the default names none in particular)
    page_words = {lang: {"illustrative_note": simulator_note(lang, kind)}
                  for lang, kind in (("zh", "训练模拟器"), ("en", "training simulator"))}

    def scenes(self) -> Mapping[str, SceneSpec]:
        return _scenes()

    def catalogue(self) -> Catalogue:
        return build_catalogue()

    def cross_partner(self, scene: str) -> bool:
        # two pictures of different runs in one scene still compare on one scale (reader hf2: a
        # played model's card drew two memory pictures 2.4x apart, hf3 two pipelines 1.5x)
        return scene in ("memory", "pipeline", "step_bar")

    def card_rules(self, path: str, concept: Concept, trouble: Any, fix: Any) -> list[Violation]:
        from pipeline.fields.training.card_rules import card_rules

        return card_rules(path, concept, trouble, fix)

    def ruler_row_words(self, tech: TechniqueView, lang: str) -> tuple[str, str, str] | None:
        from pipeline.fields.training.ruler_words import row_words

        return row_words(tech, lang)

    def ruler_machine(self, lang: str) -> str:
        from pipeline.fields.training.ruler_words import MACHINE

        return MACHINE["zh" if lang == "zh" else "en"]

    def prompt_section(self, lang: str, catalogue: Catalogue) -> str:
        from pipeline.fields.training.catalogue import grouped_placeholders
        from pipeline.plan.catalogue import fmt
        from pipeline.plan.prompting import render_prompt

        return render_prompt(
            "fields/training.j2",
            scene_shows=catalogue.scene_shows,
            scenarios=list(catalogue.scenarios.values()),
            grouped=grouped_placeholders,
            fmt=fmt,
            techniques=catalogue.techniques,
            ruler_metrics=catalogue.ruler_metrics,
        )

    def panel_run(self, plan: Plan, panel: Panel, variant: str | None = None) -> Run | None:
        return engine.panel_run(panel, variant)

    def run(self, run: Run, stats: CacheStats | None = None) -> Json:
        return engine.run_result(run, stats)

    def run_content(self, run: Run) -> str:
        return engine.run_content(run)

    def sweep(self, stats: CacheStats | None = None) -> Json | None:
        return engine.sweep_json(stats)

    def view(self, result: Json) -> Any:
        return TrainingView.from_json(result)

    def values(self, result: Json) -> Mapping[str, str]:
        return training_values(TrainingView.from_json(result))

    def numbers(self, result: Json) -> list[tuple[str, str, str, str]]:
        from pipeline.fields.training.numbers import shown_numbers

        return shown_numbers(result)

    def walkthrough(
        self, plan: Plan, concept: Concept, sim: SimResults, lang: str
    ) -> tuple[list[WalkStep], list[CompareRow]] | None:
        from pipeline.fields.training.walkthrough import comparison_rows

        pair = walk_pair(concept, sim)
        if pair is None:
            return None
        without, with_ = pair
        return walk_steps(with_, lang), comparison_rows(without, with_, lang)


def walk_pair(concept: Concept, sim: SimResults) -> tuple[TrainingView, TrainingView] | None:
    """Both variants' runs of the concept's panel the walkthrough reads (the fix first), with
    that panel's knobs; None when the sim stage has not run them."""
    for panel in (concept.fix, concept.trouble):
        if panel.scenario is None:
            continue
        knobs = tuple(sorted(panel.knob_values().items()))
        found = [sim.trace_json.get(Run(panel.scenario, v, knobs, FIELD_ID).key)
                 for v in ("without", "with")]
        if found[0] is not None and found[1] is not None:
            return TrainingView.from_json(found[0]), TrainingView.from_json(found[1])
    return None


def walk_steps(view: TrainingView, lang: str) -> list[WalkStep]:
    """The run told step by step: pipeline moments, else the ring's steps, else nothing."""
    from pipeline.fields.training.steps import draw_moment_strip, draw_ring_strip
    from pipeline.fields.training.walkthrough import moment_sentence, moments, ring_sentences

    if view.pp > 1 and view.unit_cost:
        return [
            WalkStep(i, moment_sentence(view, m, lang, first=i == 1),
                     draw_moment_strip(view, m, i, lang=lang))
            for i, m in enumerate(moments(view), 1)
        ]
    ring = view.collective("dp") or view.collective("fsdp")
    if ring is None or ring.group < 2 or ring.group > 8:
        return []
    return [
        WalkStep(i, sentence, draw_ring_strip(ring, i, lang=lang, scenario=view.scenario))
        for i, sentence in enumerate(ring_sentences(ring, lang), 1)
    ]


FIELD = TrainingField()
