"""The goodput (slo), streaming, parallel-sampling and load-curve scenes (issue 14, 5-8): goldens
from the real presets, words readable on a phone, every number a trace number, random captions
never colliding with the scene's words."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.artifacts.sim import trace_values
from pipeline.errors import InputError
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.scenes.common import MIN_PHONE_PX, PHONE_PANEL_PX
from pipeline.fields.serving.showcase import sample_concept
from pipeline.plan.model import Panel
from tests.draw.test_draw import _check_golden, _panel_svg
from tests.draw.test_field_scenes import raw, view
from tests.draw.test_layout_props import (
    _text,
    assert_clean,
    assert_fix_panel_clean,
    inherited,
)

NS = "{http://www.w3.org/2000/svg}"
CASES = [("slo", "goodput"), ("streaming", "streaming"), ("sampling", "parallel_sampling"),
         ("load_curve", "load_curve")]
VARIANTS = ("without", "with")
NUMBER = re.compile(r"(?<![A-Za-z\d.])\d+(?:\.\d+)?")  # "p99" is a name
_json, _trace = raw, view  # the same per-session preset runs as part A's scene tests


@pytest.mark.parametrize("scene,scenario", CASES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_new_scene_matches_golden(scene: str, scenario: str, variant: str) -> None:
    _check_golden(f"{scene}--{scenario}--{variant}", _panel_svg(scene, scenario, variant))


@pytest.mark.parametrize("scene,scenario", CASES)
def test_new_scene_is_deterministic(scene: str, scenario: str) -> None:
    assert _panel_svg(scene, scenario, "with", "en") == _panel_svg(scene, scenario, "with", "en")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("scene,scenario", CASES)
def test_new_scene_words_read_on_a_phone_and_never_touch(scene: str, scenario: str,
                                                         lang: str) -> None:
    """At the phone's 327 px panel every word (at its shrink floor) is >= 11 px; no two text
    boxes overlap and none leaves the inset."""
    scale = PHONE_PANEL_PX / 400
    for variant in VARIANTS:
        svg = _panel_svg(scene, scenario, variant, lang)
        assert_clean(svg)
        root = ET.fromstring(svg)
        parents = {c: p for p in root.iter() for c in p}
        texts = list(root.iter(f"{NS}text"))
        assert len(texts) > 4
        for t in texts:
            px = float(inherited(t, "font-size", parents, "0")) * float(t.get("data-floor") or 1)
            assert px * scale >= MIN_PHONE_PX, f"{t.get('id')} {''.join(t.itertext())!r}"


def _words(svg: str) -> str:
    """The drawn words only (not the title or desc), one text per line."""
    return "\n".join("".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{NS}text"))


def _numbers(data: Any) -> Iterator[float]:
    """Every number of a trace's JSON, and the length of every list and mapping (counts)."""
    if isinstance(data, bool):
        return
    if isinstance(data, int | float):
        yield float(data)
    elif isinstance(data, dict):
        yield float(len(data))
        for v in data.values():
            yield from _numbers(v)
    elif isinstance(data, list):
        yield float(len(data))
        for v in data:
            yield from _numbers(v)


def _in_trace(text: str, pool: list[float]) -> bool:
    decimals = len(text.partition(".")[2])
    value = float(text)
    return any(math.isclose(round(v, decimals), value, abs_tol=1e-9) for v in pool)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("scene,scenario", CASES)
def test_every_number_in_a_new_scene_is_a_trace_number(scene: str, scenario: str,
                                                        lang: str) -> None:
    """Each number written in the panel (scene words and filled caption; axis scale marks
    aside) is a number of the scenario's trace JSON (a field, its `figures`, or a count),
    rounded as written."""
    for variant in VARIANTS:
        data = _json(f"{scenario}/{variant}")
        pool = list(_numbers(data))
        root = ET.fromstring(_panel_svg(scene, scenario, variant, lang))
        seen = 0
        for t in root.iter(f"{NS}text"):
            if t.get("data-role") in ("axis", "name", "tag"):
                continue
            for num in NUMBER.findall("".join(t.itertext())):
                assert _in_trace(num, pool), f"{scenario}/{variant}: {num} is not in the trace"
                seen += 1
        assert seen >= 3


def test_slo_marks_each_verdict_as_the_trace_judged() -> None:
    for variant, misses in (("without", 2), ("with", 1)):
        trace = _trace(f"goodput/{variant}")
        words = _words(_panel_svg("slo", "goodput", variant, "en"))
        good = sum(1 for r in trace.requests.values() if r.meets_slo)
        assert len(trace.requests) - good == misses
        assert f"({good} of 4 meet)" in words
        assert f"goodput {trace.summary.goodput:.2f}/ms" in words
        assert words.count("TPOT") == 1 + misses  # the key, then one per miss
        # the ring a late token gets is in the key whenever the panel draws one (reader sf8)
        assert words.count("late token") == (1 if misses else 0)


def test_streaming_waits_are_ttft_or_e2el() -> None:
    for variant, field in (("without", "e2el"), ("with", "ttft")):
        trace = _trace(f"streaming/{variant}")
        words = _words(_panel_svg("streaming", "streaming", variant, "en"))
        for req in trace.requests.values():
            assert f"wait {getattr(req, field):g}" in words


def test_sampling_draws_shared_blocks_once_with_their_count() -> None:
    without = _words(_panel_svg("sampling", "parallel_sampling", "without", "en"))
    with_ = _words(_panel_svg("sampling", "parallel_sampling", "with", "en"))
    assert "×" not in without and "reuses" not in without
    assert "shared ×3" in with_ and with_.count("reuses 8 tokens") == 2
    svg = _panel_svg("sampling", "parallel_sampling", "with", "en")
    assert svg.count('stroke="var(--stored)"') >= 1


def test_both_sampling_panels_draw_one_moment() -> None:
    """The trouble and the fix show the same step (reader sf1: "step 5" beside "step 4"), the
    one where the two runs' children together hold the most blocks."""
    steps = [re.findall(r"step (\d+): \d+ blocks free",
                        _words(_panel_svg("sampling", "parallel_sampling", v, "en")))
             for v in ("without", "with")]
    assert len(steps[0]) == 1 and steps[0] == steps[1]


def test_load_curve_inks_its_own_policy() -> None:
    for variant, slots in (("without", "2 slots"), ("with", "4 slots")):
        root = ET.fromstring(_panel_svg("load_curve", "load_curve", variant, "en"))
        texts = [("".join(t.itertext())) for t in root.iter(f"{NS}text")]
        knee = _trace(f"load_curve/{variant}").figures[f"{variant}_knee"]
        assert f"knee {knee:g}" in texts
        key = [t for t in texts if t.endswith("slots")]
        assert key[0] == slots  # the inked policy is named first


@pytest.mark.parametrize("scene,scenario", CASES)
def test_new_scenes_refuse_the_wrong_trace(scene: str, scenario: str) -> None:
    if scene == "streaming":
        return  # any trace can be read as streamed or not
    concept = sample_concept(scenario, scene, "en")
    trace = _trace("batching/with")
    with pytest.raises(InputError, match=scene):
        draw_panel(concept, "fix", concept.fix, trace, trace_values(trace), lang="en")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lang=st.sampled_from(["zh", "en"]), data=st.data())
def test_new_scene_captions_never_collide(lang: str, data: st.DataObject) -> None:
    """Random captions (CJK, Latin, mixed, up to the limits) and focus ids on every new scene:
    either every text box stays inside the panel and clear of the others, or FitError."""
    limit = 15 if lang == "zh" else 40
    scene, scenario = data.draw(st.sampled_from(CASES))
    variant = data.draw(st.sampled_from(VARIANTS))
    focus = data.draw(st.lists(st.sampled_from("ABCD"), max_size=3, unique=True))
    panel = Panel(caption=data.draw(_text(lang, limit)), scene=scene, scenario=scenario,
                  variant=variant, focus=focus)
    trace = _trace(f"{scenario}/{variant}")
    assert_fix_panel_clean(panel, trace, lang)
