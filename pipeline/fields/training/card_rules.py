"""What a training card's two pictures must show, read from their runs (`Field.card_rules`).

A played model's page (reader hf3) drew FSDP's trouble as the ZeRO card's fix, a memory bar that
fits with room to spare: the reader asked why FSDP is needed at all. And it compared GPipe with
4 micro-batches against interleaving with 8, two changes in one card; another (hf6) compared
GPipe with interleaved 1F1B, skipping 1F1B. All are refused here, with the knob or the run that
would make the card honest.
"""

from __future__ import annotations

from typing import Any

from pipeline.errors import Violation
from pipeline.fields.training.scenes.common import SCHEDULES
from pipeline.fields.training.view import GB, TrainingView
from pipeline.plan.model import Concept


def card_rules(path: str, concept: Concept, trouble: Any, fix: Any) -> list[Violation]:
    out: list[Violation] = []
    if concept.trouble.scene == "memory" and isinstance(trouble, TrainingView):
        out += _memory_trouble(path, trouble)
    if (concept.trouble.scene == concept.fix.scene == "pipeline"
            and concept.trouble.scenario != concept.fix.scenario
            and isinstance(trouble, TrainingView) and isinstance(fix, TrainingView)
            and trouble.microbatches != fix.microbatches):
        out.append(Violation(f"{path}.fix", (
            f"the trouble's pipeline runs {trouble.microbatches} micro-batches and the fix's "
            f"{fix.microbatches}: the card compares two changes at once; set the "
            f"'microbatches' knob so both panels run the same number")))
    if (concept.trouble.scene == concept.fix.scene == "pipeline"
            and isinstance(trouble, TrainingView) and isinstance(fix, TrainingView)
            and abs(_step(trouble) - _step(fix)) > 1):
        out.append(Violation(f"{path}.trouble", (
            f"the trouble runs {SCHEDULES[trouble.schedule]} and the fix "
            f"{SCHEDULES[fix.schedule]}: two changes at once (the schedule, then the "
            "interleaving); draw the trouble from the scenario one step before the fix "
            "(interleaving's without variant is 1F1B, one_f_one_b's with variant too)")))
    return out


def _step(view: TrainingView) -> int:
    """The schedule's place in `SCHEDULES` (the order the cards introduce them)."""
    order = list(SCHEDULES)
    return order.index(view.schedule) if view.schedule in order else 0


def _memory_trouble(path: str, view: TrainingView) -> list[Violation]:
    """A memory picture shows its trouble by going over the GPU's memory line."""
    if not view.memory or not all(rank.fits for rank in view.memory):
        return []
    peak = max(rank.total for rank in view.memory)
    return [Violation(f"{path}.trouble", (
        f"this memory picture fits on every GPU ({peak / GB:.1f} of {view.hbm / GB:.0f} GB): "
        "a trouble panel drawn as memory shows its trouble by going over the line; draw a run "
        "that does not fit (the state before the fix, fewer GPUs, a lower ZeRO stage), or a "
        "scene that draws what goes wrong"))]
