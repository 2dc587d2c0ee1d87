"""How a picture shows a prompt being read (issue 21.2: each scene shows its concept's mechanism).

- The prefill-and-decode card's trouble reads D's prompt the way tokens are written, one a step:
  vLLM's long_prefill_token_threshold at 1 (the `prefill_piece` knob). The clock marks every
  step that read a piece and wrote nothing, and its TTFT bracket says how many steps.
- Prefix caching's budget bars draw the prompt tokens a request takes from the cache as a dashed
  box on top of the step that admits it: work the step does not do, so D's bar with the cache
  plus its dashed box is as tall as its bar without.
- A timeline with a preemption names the red crossed cell in its key.
"""

from __future__ import annotations

import re

import pytest

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.scenes.budget import _reused
from pipeline.fields.serving.showcase import sample_concept
from sim.presets.knobs import KnobError, apply_knobs
from sim.presets.scenarios import preset_workload, run_preset


def _trace(preset: str, **knobs: float) -> TraceView:
    return TraceView.from_json(run_preset(preset, detail=True, knobs=knobs or None))


def _svg(scenario: str, scene: str, trace: TraceView, focus: list[str], lang: str = "en") -> str:
    concept = sample_concept(scenario, scene, lang)
    panel = concept.fix.model_copy(update={"scene": scene, "focus": focus})
    return draw_panel(concept, "fix", panel, trace, trace_values(trace), lang=lang)


@pytest.mark.parametrize("prompt", [4, 8])
def test_a_prompt_read_one_token_a_step_takes_one_step_per_token(prompt: int) -> None:
    trace = _trace("chunked_prefill/with", d_prompt=prompt, prefill_piece=1)
    read = trace.prompt_steps("D")
    assert [s.scheduled["D"] for s in read] == [1] * prompt
    assert trace_values(trace)["D.prefill_steps"] == str(prompt)
    whole = _trace("chunked_prefill/without", d_prompt=prompt)
    assert len(whole.prompt_steps("D")) == 1
    assert trace.requests["D"].ttft > whole.requests["D"].ttft


def test_the_piece_knob_changes_only_the_chunked_variant() -> None:
    base = preset_workload("chunked_prefill/without")
    out = apply_knobs("chunked_prefill", "without", base, {"prefill_piece": 1})
    assert out["engine"].get("long_prefill_token_threshold", 0) == \
        base["engine"].get("long_prefill_token_threshold", 0)
    out = apply_knobs("chunked_prefill", "with", preset_workload("chunked_prefill/with"),
                      {"prefill_piece": 3})
    assert out["engine"]["long_prefill_token_threshold"] == 3
    with pytest.raises(KnobError, match="prefill_piece"):
        apply_knobs("chunked_prefill", "with", base, {"prefill_piece": 0})


def test_the_clock_marks_each_step_that_read_a_piece() -> None:
    trace = _trace("chunked_prefill/with", d_prompt=8, prefill_piece=1)
    svg = _svg("chunked_prefill", "clock", trace, ["D"])
    assert re.search(r">TTFT [\d.]+ over 8 steps<", svg)
    ticks = re.findall(r'<path d="([^"]*)" stroke="var\(--new\)" stroke-width="1.6"/>', svg)
    assert len(ticks) == 1 and len(re.findall("[Mm]", ticks[0])) == 7  # every step before the first token's
    assert "its prompt is read over 8 steps" in svg
    zh = _svg("chunked_prefill", "clock", trace, ["D"], lang="zh")
    assert "读了 8 步" in zh


def test_a_prompt_read_in_one_step_gets_no_marks() -> None:
    trace = _trace("chunked_prefill/without")
    svg = _svg("chunked_prefill", "clock", trace, ["D"])
    assert re.search(r">TTFT [\d.]+<", svg) and "over" not in svg.split("<desc>")[0]
    assert 'stroke="var(--new)" stroke-width="1.6"' not in svg


def test_reused_prompt_tokens_are_drawn_as_work_not_done() -> None:
    cached, uncached = _trace("prefix_cache/with"), _trace("prefix_cache/without")
    reused = {s.index: _reused(cached, s) for s in cached.steps}
    assert sum(reused.values()) == sum(r.prefix_hit_tokens for r in cached.requests.values())
    assert sum(reused.values()) > 0
    first = cached.first_scheduled("D")
    first_without = uncached.first_scheduled("D")
    assert first is not None and first_without is not None
    hit = cached.requests["D"].prefix_hit_tokens
    assert hit > 0
    assert first.scheduled["D"] + hit == first_without.scheduled["D"]
    svg = _svg("prefix_cache", "budget", cached, ["D"])
    boxes = re.findall(r'stroke="var\(--stored\)" stroke-width="1.3" stroke-dasharray', svg)
    # one dashed box per step that admits a request with a hit (the key's swatch is a <use>)
    assert len(boxes) == sum(1 for n in reused.values() if n)
    assert "reused, not computed" in svg
    plain = _svg("prefix_cache", "budget", uncached, ["D"])
    assert "reused, not computed" not in plain and 'var(--stored)' not in plain


def test_a_timeline_with_a_preemption_names_it_in_the_key() -> None:
    evicting = _trace("preemption/with")
    assert any(s.preempted for s in evicting.steps)
    assert ">preempted<" in _svg("preemption", "timeline", evicting, ["D"])
    calm = _trace("batching/with")
    assert not any(s.preempted for s in calm.steps)
    assert ">preempted<" not in _svg("batching", "timeline", calm, ["D"])


def test_two_focus_ids_draw_two_lanes_on_one_clock() -> None:
    """Chunked prefill's trade in one picture: A's row and D's row on one time axis."""
    trace = _trace("chunked_prefill/with")
    svg = _svg("chunked_prefill", "clock", trace, ["A", "D"])
    labels = re.findall(r">(TTFT [^<]*)<", svg)
    assert len(labels) == 2
    steps = len(trace.prompt_steps("D"))
    assert steps > 1 and labels[1].endswith(f"over {steps} steps")
    desc = svg.split("<desc>")[1].split("</desc>")[0]
    assert desc.index("Clock: A") < desc.index("Clock: D")
    one = _svg("chunked_prefill", "clock", trace, ["D"])
    assert len(re.findall(r">(TTFT [^<]*)<", one)) == 1
