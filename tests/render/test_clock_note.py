"""A card whose pictures write times in ms says under its panels how those ms are counted
(issue 21: the comic's 1-5 ms steps and the calibrated 6.6 ms step were never reconciled, and
the footer promised numbers a reader can check by hand): the comic's linear cost spelled out
with the run's own terms, so a reader's sum gives every drawn step; a calibrated run names its
model and GPU; a card whose pictures count steps has no line."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from test_examples import _render

from pipeline import fields
from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving.clock import TIMED_SCENES

LINEAR = {
    "zh": r"一步 = ([\d.]+) 毫秒 \+ 这一步每算一个 token 加 ([\d.]+) 毫秒",
    "en": r"one step = ([\d.]+) ms \+ ([\d.]+) ms for each token it computes",
}


@pytest.mark.parametrize("name", ["llm-inference", "llm-inference-en", "serving-frontier"])
def test_timed_cards_state_their_clock_and_it_adds_up(name: str) -> None:
    page = _render(name)
    soup = BeautifulSoup(page.html, "html.parser")
    noted = 0
    for concept in page.plan.concepts:
        note = soup.select_one(f"#card-{concept.id} p.clock-note")
        views = [
            (p.scene, fields.run_view(page.plan, concept, p, page.sim))
            for p in (concept.trouble, concept.fix)
        ]
        timed = [v for scene, v in views if scene in TIMED_SCENES and isinstance(v, TraceView)
                 and v.cost.time_unit == "ms"]
        if not timed:
            assert note is None, concept.id
            continue
        assert note is not None, f"{concept.id}: timed in ms, no clock line"
        noted += 1
        text = note.get_text()
        for view in timed:
            if view.cost.kind != "linear":
                assert view.cost.model and view.cost.gpu
                continue
            c0, tok = view.cost.terms["c0"], view.cost.terms["c_tok"]
            said = [(float(a), float(b)) for a, b in re.findall(LINEAR[page.plan.lang], text)]
            assert (c0, tok) in said, (concept.id, text)
            if view.cost.terms.get("c_kv", 0.0) == 0.0:  # the reader's sum gives every step
                for step in view.steps:
                    assert step.duration == pytest.approx(c0 + tok * step.total_tokens)
    assert noted, f"{name}: no card is timed in ms"
