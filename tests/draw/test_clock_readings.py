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


@pytest.mark.parametrize("lang, word", [("zh", "之后平均每字"), ("en", "per token")])
def test_the_clock_brackets_the_rest_of_the_wait_with_its_tpot(lang: str, word: str) -> None:
    """TTFT + (tokens after the first) x TPOT is the whole wait: the clock brackets both parts,
    the second labelled with the simulator's TPOT."""
    clock, trace = _draw("clock", "metrics/with", "D", lang)
    d = trace.requests["D"]
    assert d.tpot is not None and len(d.token_times) > 2
    assert word in _texts(clock) and fmt(d.tpot) in _texts(clock)
    assert d.ttft is not None
    assert abs(d.ttft + d.tpot * (len(d.token_times) - 1) - (d.token_times[-1] - d.arrival)) < 1e-6


def _bar_count(svg: str) -> int:
    """How many closed bars the itl_pool scene draws (one closed subpath per gap, in one path)."""
    return sum(len(re.findall(r"[Zz]", d))
               for d in re.findall(r'<path d="([^"]*)"[^>]*fill="var\(--run\)"', svg))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_itl_pool_draws_every_gap_sorted_with_the_simulators_percentiles(lang: str) -> None:
    """What a percentile is: every gap of every request (ITL pooled as vllm bench serve does),
    shortest first, each named by its request; the mean and P50/P99 are the trace's summary."""
    svg, trace = _draw("itl_pool", "goodput/without", "B", lang)
    gaps = sorted(
        (b - a, rid)
        for rid, r in trace.requests.items()
        for a, b in zip(r.token_times, r.token_times[1:], strict=False)
    )
    assert _bar_count(svg) == len(gaps) == 22
    itl = trace.summary.itl
    assert itl is not None
    text = _texts(svg)
    assert f"P50 {fmt(itl.median)}" in text and f"P99 {fmt(itl.p99)}" in text
    assert fmt(itl.mean) in text and itl.p99 > 2 * itl.mean, "the tail the mean hides"
    names = re.search(r"<text[^>]*>((?:<tspan[^>]*>[A-D]</tspan>)+)</text>", svg)
    assert names is not None
    assert re.findall(r">([A-D])<", names.group(1)) == [rid for *_, rid in sorted(
        (g, order, k, rid) for order, (rid, r) in enumerate(trace.requests.items())
        for k, g in enumerate(b - a for a, b in zip(r.token_times, r.token_times[1:],
                                                   strict=False)))]
    desc = re.search(r"<desc>(.*?)</desc>", svg)
    assert desc is not None and fmt(itl.p90) in desc.group(1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_throughput_counts_every_request_and_goodput_only_those_on_target(lang: str) -> None:
    """One run measured two ways: the throughput reading has no targets and no verdicts; the
    slo reading of the same run judges each request (same time scale: same token positions)."""
    plain, trace = _draw("throughput", "goodput/without", "B", lang)
    judged, _ = _draw("slo", "goodput/without", "B", lang)
    s = trace.summary
    assert s.request_throughput is not None and s.output_throughput is not None
    assert f"{s.request_throughput:.2f}" in _texts(plain)
    assert f"{s.output_throughput:.2f}" in _texts(plain)
    assert f"{s.goodput:.2f}" not in _texts(plain) and f"{s.goodput:.2f}" in _texts(judged)
    tokens = sum(r.output_tokens for r in trace.requests.values())
    assert re.search(rf"(?<![\d.]){tokens}(?![\d.])", _texts(plain))
    dots = re.compile(r'<circle cx="([\d.]+)" cy="([\d.]+)"')
    assert dots.findall(plain) == dots.findall(judged), "the two readings share one time scale"


def test_gap_labels_never_run_together() -> None:
    """Short gaps side by side keep their arcs but label only where a number stands apart
    (a reader saw '1.21.21.2'): every two labels at least LABEL_SPACE apart."""
    from pipeline import fonts
    from pipeline.fields.serving.scenes.clock import LABEL_SPACE

    trace = TraceView.from_json(run_preset("chunked_prefill/with", detail=True,
                                           knobs={"token_budget": 4}))
    concept = sample_concept("chunked_prefill", "clock", "en")
    panel = concept.trouble.model_copy(update={"scene": "clock", "focus": ["D"]})
    svg = draw_panel(concept, "trouble", panel, trace, trace_values(trace), lang="en")
    # the gap labels: bare numbers with no role (the axis ticks have data-role="axis")
    spans = sorted(
        (float(x) - w / 2, float(x) + w / 2)
        for x, text in re.findall(r'<text x="([\d.]+)" y="[\d.]+">([\d.]+)</text>', svg)
        for w in [fonts.measure(text, fonts.HAND_EN, 13.5)]
    )
    gaps = trace.requests["D"].token_times
    assert len(gaps) > 4 and 1 <= len(spans) < len(gaps) - 1, "some labels left out, not all"
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert start - end >= LABEL_SPACE - 0.2
