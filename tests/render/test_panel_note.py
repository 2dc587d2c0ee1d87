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
        note = soup.select_one(f"#card-{concept.id} p.panel-note")
        views = [
            (p.scene, fields.run_view(page.plan, concept, p, page.sim))
            for p in (concept.trouble, concept.fix)
        ]
        timed = [v for scene, v in views if scene in TIMED_SCENES and isinstance(v, TraceView)
                 and v.cost.time_unit == "ms"]
        if not timed:
            assert note is None or not note.get_text().startswith(("时钟", "Clock")), concept.id
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


def test_a_card_that_changes_the_casts_prompts_says_so() -> None:
    """The cast has fixed prompts (sim.presets.cast.CAST); a card whose runs give them others
    (prefix caching's shared system prompt, card 1's knob on D's) names the new lengths and the
    shared opening, and no other card of the example writes such a line."""
    from sim.presets.cast import CAST

    page = _render("llm-inference")
    soup = BeautifulSoup(page.html, "html.parser")
    said = {}
    for concept in page.plan.concepts:
        note = soup.select_one(f"#card-{concept.id} p.panel-note")
        said[concept.id] = note.get_text() if note is not None else ""
    changed = [cid for cid, text in said.items() if "本卡的提示词" in text]
    # card 1 reads a shorter prompt for D one token a step (a knob: D 8), so it says so too
    assert changed == ["prefill_decode", "prefix_caching"], changed
    assert "D 8 个 token" in said["prefill_decode"], said["prefill_decode"]
    concept = page.plan.concept("prefix_caching")
    assert concept is not None
    trace = fields.run_view(page.plan, concept, concept.fix, page.sim)
    assert isinstance(trace, TraceView)
    shared = max(r.prefix_hit_tokens for r in trace.requests.values())
    for rid, prompt, _max, _arrival in CAST:
        first = next(s for s in trace.steps if rid in s.scheduled)
        n = first.tokens[rid] - (1 if rid in first.emitted else 0)
        assert n != prompt and f"{rid} {n}" in said["prefix_caching"]
    assert f"开头 {shared} 个 token 是同一段" in said["prefix_caching"]


@pytest.mark.parametrize("name", ["llm-inference", "llm-inference-en"])
def test_the_comic_clock_says_it_is_illustrative_once_and_later_cards_point_back(name: str) -> None:
    """The enlarged per-token charge is explained on the first card the comic clock times; the
    later ones keep their formula (a reader's sum still gives every step) and point back to that
    card instead of repeating the paragraph (reader li7: the same note on six cards)."""
    from pipeline.fields.serving.clock import LINEAR_AGAIN, LINEAR_TAIL

    page = _render(name)
    soup = BeautifulSoup(page.html, "html.parser")
    key = page.plan.lang
    notes = [(int(card.select_one(".card-index").get_text().split("/")[0]),
              note.get_text()) for card in soup.select("article.card")
             if (note := card.select_one("p.panel-note")) is not None]
    full = [n for n, text in notes if LINEAR_TAIL[key] in text]
    assert len(full) == 1, notes
    back = [text for n, text in notes if re.search(LINEAR[key], text) and n not in full]
    assert back, "the example times more than one card on the comic clock"
    assert all(LINEAR_AGAIN[key].format(n=full[0]) in text for text in back), back
