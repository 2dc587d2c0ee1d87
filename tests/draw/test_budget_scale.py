"""The budget scene (issue 21.2: the two panels of a card at one scale): both panels of one
scenario share one height per token, and a budget no step comes near is left off the picture
(the KV-cache card's 64 against steps of at most 34 tokens: a word the card does not need)."""

from __future__ import annotations

import re

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.scenes.budget import NEAR_BUDGET
from pipeline.fields.serving.showcase import sample_concept
from sim.presets.scenarios import run_preset


def _budget_svg(scenario: str, variant: str, *, partnered: bool) -> tuple[str, TraceView]:
    trace = TraceView.from_json(run_preset(f"{scenario}/{variant}", detail=True))
    other = "with" if variant == "without" else "without"
    partner = TraceView.from_json(run_preset(f"{scenario}/{other}", detail=True))
    concept = sample_concept(scenario, "budget", "en")
    panel = concept.fix.model_copy(update={"scene": "budget"})
    svg = draw_panel(concept, "fix", panel, trace, trace_values(trace), lang="en",
                     partner=partner if partnered else None)
    return svg, trace


def _budget_label_y(svg: str) -> float | None:
    found = re.search(r'<text[^>]*y="([\d.]+)"[^>]*>budget \d+</text>', svg)
    return float(found.group(1)) if found else None


def test_a_budget_no_step_comes_near_is_not_drawn() -> None:
    for variant in ("without", "with"):
        svg, trace = _budget_svg("kv_cache", variant, partnered=True)
        assert trace.engine is not None
        assert max(s.total_tokens for s in trace.steps) < NEAR_BUDGET * \
            trace.engine.max_num_batched_tokens
        assert _budget_label_y(svg) is None
    svg, _ = _budget_svg("chunked_prefill", "with", partnered=True)
    assert _budget_label_y(svg) is not None


def test_the_two_panels_share_one_height_scale() -> None:
    """Chunked prefill's fix alone scales to its budget of 8; beside the unchunked run (a
    15-token step) it scales to that step, so its budget line sits lower than when alone."""
    alone, _ = _budget_svg("chunked_prefill", "with", partnered=False)
    paired, _ = _budget_svg("chunked_prefill", "with", partnered=True)
    y_alone, y_paired = _budget_label_y(alone), _budget_label_y(paired)
    assert y_alone is not None and y_paired is not None and y_paired > y_alone
    other, trace = _budget_svg("chunked_prefill", "without", partnered=True)
    assert trace.engine is not None and trace.engine.max_num_batched_tokens > 4 * 15
    assert _budget_label_y(other) is None, "the unchunked run's budget is far above its steps"
