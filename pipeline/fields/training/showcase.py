"""Sample plan pieces for the training field's drawing demo (`pipeline.fields.training.demo`)
and its golden tests: one concept per scenario and scene kind, both variants, captions binding
the run's numbers through placeholders exactly as a real plan does, and the walkthrough's
strips of a pipeline and of a ring concept.

This runs the training simulator (through the field's engine), so it lives beside the page,
not in `pipeline.draw` (which only receives views).
"""

from __future__ import annotations

from typing import Literal

from pipeline.draw.panel import draw_panel
from pipeline.fields.base import Run
from pipeline.fields.training import FIELD, walk_steps
from pipeline.fields.training.catalogue import DRAWN_BY, FIELD_ID
from pipeline.fields.training.view import TrainingView
from pipeline.plan.model import Concept, Panel

VARIANTS: tuple[Literal["without", "with"], ...] = ("without", "with")
# scenario id -> (zh caption, en caption): numbers only through placeholders
CAPTIONS: dict[str, tuple[str, str]] = {
    "pipeline_bubble": ("空闲占 {bubble_pct}%", "the GPUs idle {bubble_pct}% of the time"),
    "one_f_one_b": ("头一张 GPU 存 {rank0.held} 份", "the first GPU holds {rank0.held} of them"),
    "interleaving": ("空闲占 {bubble_pct}%", "idle {bubble_pct}% of the step"),
    "zero_sharding": ("每张 {peak_gb} GB", "{peak_gb} GB on each GPU"),
    "recompute": ("一步 {step_time} 秒", "{peak_gb} GB, a step of {step_time} s"),
    "tensor_split": ("每张 {peak_gb} GB", "{peak_gb} GB on each GPU"),
    "tensor_recompute": ("一步 {step_time} 秒", "{peak_gb} GB, a step of {step_time} s"),
    "three_d": ("一步 {step_time} 秒", "one step: {step_time} s, MFU {mfu_pct}%"),
    "grad_sync": ("一步 {step_time} 秒", "one step: {step_time} s"),
    "accumulation": ("每张 {peak_gb} GB", "{peak_gb} GB, a step of {step_time} s"),
    "scaling": ("最多 GPU 时 {mfu_pct}%", "MFU {mfu_pct}% on the most GPUs"),
}


def sample_concept(scenario: str, scene: str, lang: str) -> Concept:
    zh, en = CAPTIONS[scenario]
    panels = {
        v: Panel(caption=zh if lang == "zh" else en, scene=scene, scenario=scenario, variant=v)
        for v in VARIANTS
    }
    return Concept(id=f"{scenario}_{scene}", field=FIELD_ID, name=scenario[:20],
                   name_en=scenario, problem_left="-", body="-", trouble=panels["without"],
                   fix=panels["with"], solves="-", costs="-")


def run_view(scenario: str, variant: str, knobs: tuple[tuple[str, float], ...] = ()) -> (
        tuple[TrainingView, dict[str, str]]):
    result = FIELD.run(Run(scenario, variant, knobs, FIELD_ID))
    return TrainingView.from_json(result), dict(FIELD.values(result))


def panel_svg(scenario: str, scene: str, variant: str, lang: str = "zh") -> str:
    """One sample panel as the page draws it (the trouble panel is the without variant)."""
    concept = sample_concept(scenario, scene, lang)
    side = "trouble" if variant == "without" else "fix"
    panel = concept.trouble if side == "trouble" else concept.fix
    view, values = run_view(scenario, variant)
    return draw_panel(concept, side, panel, view, values, lang=lang,  # type: ignore[arg-type]
                      scene=FIELD.scenes()[scene])


def scenario_panels(lang: str) -> list[tuple[str, str]]:
    """(label, svg) for every scenario x scene x variant the catalogue allows."""
    return [
        (f"{sid}/{variant} · {scene}", panel_svg(sid, scene, variant, lang))
        for sid, scenes in DRAWN_BY.items()
        for scene in scenes
        for variant in VARIANTS
    ]


def walkthrough_strips(lang: str) -> list[tuple[str, str]]:
    """(sentence, strip) of the walkthrough of a pipeline concept and of a ring concept."""
    out = []
    for scenario in ("one_f_one_b", "grad_sync"):
        view, _values = run_view(scenario, "with")
        out += [(f"{scenario} {s.index}. {s.sentence}", s.strip) for s in walk_steps(view, lang)]
    return out
