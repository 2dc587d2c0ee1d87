"""The main thread's cast at work is the page's own: the scheduler's clerk and the requests
A B C D belong to the serving field, and a training page (whose cast is a GPU and a
micro-batch) drew them anyway."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.draw.main_thread import draw_main_thread
from pipeline.plan.model import load_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAME = re.compile(r'<text data-role="name"[^>]*>([^<]*)</text>')


def names(svg: str) -> list[str]:
    """The names the figures wear (bean letters, the chip's GPU), in drawing order."""
    return NAME.findall(svg)


@pytest.mark.parametrize("narrow", [False, True])
@pytest.mark.parametrize("kind", ["loop", "pipeline"])
def test_a_training_page_shows_its_own_cast(kind: str, narrow: bool) -> None:
    plan = load_plan(EXAMPLES / "training-at-scale" / "plan.json")
    plan = plan.model_copy(update={
        "main_thread": plan.main_thread.model_copy(update={"kind": kind})})
    svg = draw_main_thread(plan, lang="en", narrow=narrow)
    assert names(svg) == [m.id for m in plan.cast]


@pytest.mark.parametrize("narrow", [False, True])
def test_a_serving_page_keeps_the_scheduler_at_work(narrow: bool) -> None:
    plan = load_plan(EXAMPLES / "llm-inference-en" / "plan.json")
    svg = draw_main_thread(plan, lang="en", narrow=narrow)
    assert names(svg) == ["D", "A", "B", "C", "D", "GPU"]
