"""The serving field: LLM inference serving drawn from the bundled vLLM-exact simulator.

Everything about it in one place: its scene kinds (`scenes/`), the registry data and the
catalogue built from the simulator's presets (`catalogue.py`), the engine runs and the ruler's
sweep (`engine.py`), the walkthrough's sentences, table and step strips (`walkthrough.py`,
`steps.py`), the drawing demo (`showcase.py`, `demo.py`) and its prompt section
(`prompts/fields/serving.j2`). Its cast: A, B, C old requests already generating, D a newcomer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.draw.scene import SceneSpec
from pipeline.fields.base import CompareRow, Field, Json, Run, Symbol, WalkStep
from pipeline.fields.serving import engine
from pipeline.fields.serving.catalogue import SCENE_SHOWS, build_catalogue
from pipeline.fields.serving.vocabulary import VOCABULARY
from pipeline.plan.catalogue import Catalogue
from pipeline.plan.model import Panel
from pipeline.render.strings import UI_STRINGS, simulator_note
from sim.presets.cast import cast_words

if TYPE_CHECKING:
    from pipeline.artifacts.sim import SimResults
    from pipeline.fields.cache import CacheStats
    from pipeline.plan.model import Concept, Plan

DEFAULT_NEWCOMER = "D"


@cache
def _scenes() -> dict[str, SceneSpec]:
    from pipeline.fields.serving.scenes import (
        bars,
        budget,
        clock,
        disagg,
        drafts,
        itl_pool,
        kv_blocks,
        kv_capacity,
        load_curve,
        queue,
        roofline,
        sampling,
        slo,
        streaming,
        timeline,
        tp_shards,
    )
    from pipeline.fields.serving.scenes.common import WORDS

    modules = {
        "timeline": timeline, "kv_blocks": kv_blocks, "budget": budget, "queue": queue,
        "clock": clock, "roofline": roofline, "bars": bars, "drafts": drafts,
        "kv_capacity": kv_capacity, "tp_shards": tp_shards, "disagg": disagg, "slo": slo,
        "streaming": streaming, "sampling": sampling, "load_curve": load_curve,
        "itl_pool": itl_pool,
    }  # fmt: skip
    draws = {kind: module.draw for kind, module in modules.items()}
    draws |= {"clock_total": clock.draw_total, "clock_mean": clock.draw_mean,
              "throughput": slo.draw_throughput}
    return {kind: SceneSpec(kind, SCENE_SHOWS[kind], fn, WORDS) for kind, fn in draws.items()}


def serving_scene(kind: str) -> SceneSpec | None:
    """The serving scene of `kind` (None for generic or an unknown kind: drawn generic)."""
    return _scenes().get(kind)


def draw_panel(
    concept: Concept,
    side: str,
    panel: Panel,
    trace: TraceView | None,
    values: Mapping[str, str],
    *,
    lang: str,
    **options: Any,
) -> str:
    """A panel drawn with the serving scene of its kind from `trace` (generic without one);
    InputError for a scene that cannot draw the panel's scenario (`DRAWN_BY`)."""
    from pipeline.draw.panel import draw_panel as draw_any_panel
    from pipeline.errors import InputError
    from pipeline.fields.serving.catalogue import DRAWN_BY

    drawn_by = DRAWN_BY.get(panel.scenario or "")
    if trace is not None and panel.scene != "generic" and drawn_by and panel.scene not in drawn_by:
        raise InputError(
            f"card {concept.id}, panel {side}: a '{panel.scene}' scene cannot draw scenario "
            f"'{panel.scenario}' (drawn by: {', '.join(drawn_by)})"
        )
    return draw_any_panel(
        concept,
        side,  # type: ignore[arg-type]  # "trouble" or "fix"
        panel,
        trace,
        values,
        lang=lang,
        scene=serving_scene(panel.scene),
        **options,
    )


# What a folder about LLM serving talks about (weights: how surely a word means this field).
SERVING_TERMS: dict[str, float] = {
    "inference": 1.0, "serving": 1.0, "vLLM": 2.0, "KV cache": 2.0, "prefill": 2.0,
    "decode": 1.0, "decoding": 1.0, "continuous batching": 2.0, "batching": 1.0, "TTFT": 2.0,
    "TPOT": 2.0, "ITL": 1.5, "time to first token": 2.0, "throughput": 0.5, "latency": 0.5,
    "PagedAttention": 2.0, "prefix caching": 2.0, "chunked prefill": 2.0, "scheduler": 0.5,
    "speculative decoding": 2.0, "goodput": 2.0, "tokens per second": 1.0, "request": 0.3,
    "推理": 1.0, "预填充": 2.0, "解码": 1.0, "连续批处理": 2.0, "批处理": 1.0, "首字": 2.0,
    "吞吐": 0.5, "延迟": 0.5, "调度器": 0.5, "前缀缓存": 2.0, "分块预填充": 2.0, "投机解码": 2.0,
}  # fmt: skip


class ServingField(Field):
    id = "serving"
    cast_colours = True
    title = "LLM inference serving"
    terms = SERVING_TERMS
    vocabulary = VOCABULARY
    # Most ruler runs send requests at a fixed rate (sim.presets.ruler_workloads): a reader
    # took its throughput column for capacity, so the legend says what it measures.
    page_words = {
        "zh": {"ruler_legend": UI_STRINGS["zh"]["ruler_legend"] + "多数负载的请求按固定速率送进来：两边都跟得上"
               "时，吞吐差不多就是送进来的量；有差别，要么是一边跟不上，要么是它更早写完最后几个回答"
               "（吞吐是整次运行的 token 数除以总时长，和 vllm bench serve 的算法一样）。",
               "illustrative_note": simulator_note("zh", "批处理模拟器")},
        "en": {"ruler_legend": UI_STRINGS["en"]["ruler_legend"] + " Most workloads send requests "
               "at a fixed rate: when both sides keep up, throughput is about what arrives, and a gap "
               "means one side falls behind or finishes its last answers sooner (throughput is "
               "the run's tokens over its whole length, as vllm bench serve counts it).",
               "illustrative_note": simulator_note("en", "batching simulator")},
    }

    def scenes(self) -> Mapping[str, SceneSpec]:
        return _scenes()

    def catalogue(self) -> Catalogue:
        return build_catalogue()

    def prompt_section(self, lang: str, catalogue: Catalogue) -> str:
        from pipeline.fields.serving.catalogue import grouped_placeholders
        from pipeline.plan.catalogue import fmt
        from pipeline.plan.prompting import render_prompt

        return render_prompt(
            "fields/serving.j2",
            scene_shows=catalogue.scene_shows,
            scenarios=list(catalogue.scenarios.values()),
            grouped=grouped_placeholders,
            fmt=fmt,
            techniques=catalogue.techniques,
            ruler_metrics=catalogue.ruler_metrics,
            cast=cast_words(),
        )

    def symbols(self) -> Sequence[Symbol]:
        from pipeline.fields.serving.scenes import clock, drafts

        return [*drafts.SYMBOLS, (clock.DOT, clock.dot_body)]

    def panel_run(self, plan: Plan, panel: Panel, variant: str | None = None) -> Run | None:
        return engine.panel_run(panel, variant)

    def run(self, run: Run, stats: CacheStats | None = None) -> Json:
        return engine.run_trace(run, stats)

    def run_content(self, run: Run) -> str:
        return engine.run_content(run)

    def sweep(self, stats: CacheStats | None = None) -> Json | None:
        return engine.sweep_json(stats)

    def view(self, result: Json) -> Any:
        return TraceView.from_json(result)

    def panel_note(self, views: Sequence[tuple[str, str, Any]], lang: str) -> str:
        from pipeline.fields.serving.clock import cast_note, clock_note

        return " ".join(t for t in (clock_note(views, lang), cast_note(views, lang)) if t)

    def once_notes(self, lang: str) -> Mapping[str, str]:
        from pipeline.fields.serving.clock import LINEAR_AGAIN, LINEAR_TAIL

        key = "zh" if lang == "zh" else "en"
        return {LINEAR_TAIL[key]: LINEAR_AGAIN[key]}

    def values(self, result: Json) -> Mapping[str, str]:
        return trace_values(TraceView.from_json(result))

    def numbers(self, result: Json) -> list[tuple[str, str, str, str]]:
        from pipeline.fields.serving.numbers import shown_numbers

        return shown_numbers(result)

    def walkthrough(
        self, plan: Plan, concept: Concept, sim: SimResults, lang: str
    ) -> tuple[list[WalkStep], list[CompareRow]] | None:
        from pipeline.fields.serving.steps import draw_block_strip, draw_step_strip
        from pipeline.fields.serving.walkthrough import comparison_rows, step_sentences

        panel = walk_panel(concept, sim)
        if panel is None or panel.scenario is None:
            return None
        knobs = panel.knob_values()
        with_trace = sim.trace(panel.scenario, "with", knobs) or TraceView()
        focus = [newcomer(plan)]
        # each row draws the concept's own mechanism: the KV pool for a memory concept, the
        # batch against the token budget (with drafts, GPUs, hand-offs) otherwise
        strip = draw_block_strip if panel.scene == "kv_blocks" else draw_step_strip
        steps = [
            WalkStep(
                row.index,
                row.sentence,
                strip(with_trace, row.index, lang=lang, focus=focus),
            )
            for row in step_sentences(with_trace, lang, blocks=strip is draw_block_strip)
        ]
        without_trace = sim.trace(panel.scenario, "without", knobs)
        table = (
            comparison_rows(without_trace, with_trace, newcomer(plan), lang)
            if without_trace is not None
            else []
        )
        return steps, table


def walk_panel(concept: Concept, sim: SimResults) -> Panel | None:
    """The panel whose scenario (with its knobs) the walkthrough reads: the fix first."""
    for panel in (concept.fix, concept.trouble):
        if panel.scenario and sim.trace(panel.scenario, "with", panel.knob_values()) is not None:
            return panel
    return None


def newcomer(plan: Plan) -> str:
    return next((m.id for m in plan.cast if m.state == "new"), DEFAULT_NEWCOMER)


FIELD = ServingField()
