"""A metric card's run measured two ways (issue 21.2): the clock labels the gaps (the longest as
a stall when it stands out), clock_mean draws the same tokens evenly at their mean gap, and
clock_total reads the run as one end-to-end figure."""

from __future__ import annotations

import re

import pytest

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.draw.scene import fmt
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.showcase import sample_concept
from sim.presets.scenarios import run_preset


def _texts(svg: str) -> str:
    return " ".join(re.findall(r">([^<>]+)</t", svg))


def _draw(scene: str, name: str, rid: str, lang: str) -> tuple[str, TraceView]:
    trace = TraceView.from_json(run_preset(name, detail=True))
    concept = sample_concept(name.split("/")[0], "clock", lang)
    panel = concept.trouble.model_copy(update={"scene": scene, "focus": [rid]})
    return draw_panel(concept, "trouble", panel, trace, trace_values(trace), lang=lang), trace


@pytest.mark.parametrize("lang, stall, mean", [("zh", "卡顿", "平均间隔"), ("en", "stall", "mean gap")])
def test_the_mean_hides_the_stall_the_clock_labels(lang: str, stall: str, mean: str) -> None:
    clock, trace = _draw("clock", "chunked_prefill/without", "A", lang)
    times = trace.requests["A"].token_times
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    longest = max(gaps)
    assert longest > 1.5 * sorted(gaps)[len(gaps) // 2], "the preset's A stalls once"
    assert f"{stall} {fmt(longest)}" in _texts(clock)
    averaged, _ = _draw("clock_mean", "chunked_prefill/without", "A", lang)
    assert f"{mean} {fmt(sum(gaps) / len(gaps))}" in _texts(averaged)
    assert fmt(longest) not in _texts(averaged).split()
    assert stall not in _texts(averaged)


def test_a_clock_without_a_stall_labels_none() -> None:
    clock, trace = _draw("clock", "metrics/with", "D", "en")
    assert "stall" not in _texts(clock)


@pytest.mark.parametrize("lang, word", [("zh", "总共"), ("en", "in all")])
def test_the_total_reads_the_run_as_one_number(lang: str, word: str) -> None:
    total, trace = _draw("clock_total", "metrics/with", "D", lang)
    d = trace.requests["D"]
    assert f"{word} {fmt(d.token_times[-1] - d.arrival)}" in _texts(total)
    assert "TTFT" not in _texts(total)
