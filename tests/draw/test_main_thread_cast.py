"""The main thread's cast at work (D waiting, the scheduler clerk, the batch, the GPU) is the
serving scheduler: it is drawn on a page with a serving card and never on a page of another
field, where a GPU and a batching clerk would be a picture its subject does not have (P25)."""

from __future__ import annotations

import pytest

from pipeline.draw import draw_main_thread
from pipeline.fields.serving.showcase import EXAMPLE_PLAN
from pipeline.plan.model import Plan, load_plan

SERVING_SYMBOLS = ("tj-clerk", "tj-gpu-busy")


def _as_field(plan: Plan, field: str) -> Plan:
    """The same plan with every card moved to `field` (only the main thread is drawn here)."""
    other = plan.model_copy(deep=True)
    for concept in other.concepts:
        concept.field = field
    return other


@pytest.mark.parametrize("narrow", [False, True])
@pytest.mark.parametrize("kind", ["loop", "pipeline"])
def test_only_a_serving_page_draws_the_scheduler_cast(kind: str, narrow: bool) -> None:
    serving = load_plan(EXAMPLE_PLAN)
    serving.main_thread.kind = kind  # type: ignore[assignment]
    general = _as_field(serving, "general")
    drawn = draw_main_thread(serving, lang=serving.lang, narrow=narrow)
    assert all(f"#{s}" in drawn for s in SERVING_SYMBOLS)
    bare = draw_main_thread(general, lang=general.lang, narrow=narrow)
    assert not any(s in bare for s in SERVING_SYMBOLS + ("tj-bean",))
    for stage in general.main_thread.stages:  # the stages themselves are all still there
        assert stage.label in bare


def test_a_pipeline_without_the_cast_is_not_left_half_empty() -> None:
    general = _as_field(load_plan(EXAMPLE_PLAN), "general")
    general.main_thread.kind = "pipeline"
    bare = draw_main_thread(general, lang=general.lang)
    full = draw_main_thread(load_plan(EXAMPLE_PLAN), lang="zh")
    height = [float(svg.split('viewBox="')[1].split('"')[0].split()[3]) for svg in (bare, full)]
    assert height[0] < height[1]
