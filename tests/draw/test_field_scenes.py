"""The field scenes (issue 14, part A): speculative decoding (`drafts`), KV capacity / FP8
(`kv_capacity`), tensor parallelism (`tp_shards`) and disaggregation (`disagg`).

Goldens from the real presets, phone-size text, random captions and focus at the limits, and every
number a panel writes found in its scenario's trace (steps, requests, summary, capacity, figures).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.errors import InputError
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.scenes.common import MIN_PHONE_PX, PHONE_PANEL_PX, fmt
from pipeline.fields.serving.scenes.drafts import slot_kinds
from pipeline.fields.serving.scenes.tp_shards import fmt_ms
from pipeline.fields.serving.showcase import sample_concept
from pipeline.plan.model import Panel
from sim.presets.scenarios import run_preset
from tests.draw.test_draw import _check_golden, _panel_svg
from tests.draw.test_layout_props import (
    _concept,
    _text,
    assert_clean,
    assert_fix_panel_clean,
    inherited,
)

NS = "{http://www.w3.org/2000/svg}"
# scene kind -> the real preset it draws
FIELD_CASES = [("drafts", "spec_decode"), ("kv_capacity", "fp8_kv"),
               ("tp_shards", "tensor_parallel"), ("disagg", "disaggregation")]
VARIANTS = ("without", "with")
RAW: dict[str, dict[str, Any]] = {}


def raw(name: str) -> dict[str, Any]:
    if name not in RAW:
        RAW[name] = run_preset(name, detail=True)
    return RAW[name]


def view(name: str) -> TraceView:
    return TraceView.from_json(raw(name))


@pytest.mark.parametrize("scene,scenario", FIELD_CASES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_field_scene_matches_golden(scene: str, scenario: str, variant: str) -> None:
    _check_golden(f"{scene}--{scenario}--{variant}", _panel_svg(scene, scenario, variant))


@pytest.mark.parametrize("scene,scenario", FIELD_CASES)
def test_field_scenes_are_deterministic_and_clean(scene: str, scenario: str) -> None:
    for lang in ("zh", "en"):
        for variant in VARIANTS:
            svg = _panel_svg(scene, scenario, variant, lang)
            assert svg == _panel_svg(scene, scenario, variant, lang)
            assert_clean(svg)
            assert "示意值" in svg or "illustrative" in svg


def _texts(svg: str) -> Iterator[tuple[ET.Element, float]]:
    root = ET.fromstring(svg)
    parents = {c: p for p in root.iter() for c in p}
    for t in root.iter(f"{NS}text"):
        yield t, float(inherited(t, "font-size", parents, "0")) * float(t.get("data-floor") or 1.0)


@pytest.mark.parametrize("scene,scenario", FIELD_CASES)
def test_field_scene_words_stay_readable_on_a_phone(scene: str, scenario: str) -> None:
    """At the phone's 327 px panel every word, even shrunk to its floor, is >= 11 px."""
    scale = PHONE_PANEL_PX / 400
    for lang in ("zh", "en"):
        for variant in VARIANTS:
            texts = list(_texts(_panel_svg(scene, scenario, variant, lang)))
            assert len(texts) >= 6
            for t, size in texts:
                px = size * scale
                assert px >= MIN_PHONE_PX, f"{scene}/{variant}/{lang}: {t.get('id')} {px:.1f} px"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lang=st.sampled_from(["zh", "en"]), data=st.data())
def test_field_scene_captions_and_focus_never_collide(lang: str, data: st.DataObject) -> None:
    """Random captions up to the limit and random focus ids (which pick the request a scene
    reports on) either fit cleanly or raise a FitError naming card and panel."""
    limit = 15 if lang == "zh" else 40
    scene, scenario = data.draw(st.sampled_from(FIELD_CASES))
    variant = data.draw(st.sampled_from(VARIANTS))
    caption = data.draw(_text(lang, limit))
    focus = data.draw(st.lists(st.sampled_from("ABCD"), max_size=3, unique=True))
    panel = Panel(caption=caption, scene=scene, scenario=scenario, variant=variant, focus=focus)
    trace = view(f"{scenario}/{variant}")
    assert_fix_panel_clean(panel, trace, lang)


# ---- every number in a panel is a trace number ------------------------------------------------

NUMBER = re.compile(r"\d+(?:\.\d+)?")
IDENTIFIERS = re.compile(r"\b(?:bf16|fp8|fp16|int8)\b|1/\d+")


def _leaves(data: Any) -> Iterator[float]:
    if isinstance(data, bool):
        return
    if isinstance(data, int | float):
        yield float(data)
    elif isinstance(data, dict):
        for v in data.values():
            yield from _leaves(v)
    elif isinstance(data, list | tuple):
        for v in data:
            yield from _leaves(v)


def trace_numbers(name: str) -> set[str]:
    """Every number of the trace, as a panel may write it (one decimal, ms below 0.1, GB, MB,
    KiB, percent), plus what is read straight off it: gaps between a request's tokens, transfer
    and TTFT intervals, a request's drafts and tokens per decode step, a GPU's share of the KV."""
    data = raw(name)
    trace = view(name)
    values = list(_leaves(data))
    for req in trace.requests.values():
        t = req.token_times
        values += [b - a for a, b in zip(t, t[1:], strict=False)]
        if req.transfer is not None:
            values.append(req.transfer[1] - req.transfer[0])
        if req.first_token is not None:
            values.append(req.first_token - req.arrival)
        real = [s for s in trace.steps if req.id in s.drafts and req.id not in s.padded]
        values.append(sum(s.drafts[req.id] for s in real))
        values.append(sum(min(s.accepted.get(req.id, 0), s.emitted_tokens.get(req.id, 0))
                          for s in real))
        emitted = [s.emitted_tokens.get(req.id, 1) for s in trace.steps
                   if req.id in s.emitted and t and s.end > t[0] + 1e-9]
        if emitted:
            values.append(sum(emitted) / len(emitted))
    cap = trace.summary.capacity
    if cap is not None:
        values.append(cap.kv_budget_bytes / cap.tp)
    out = set(trace_values(trace).values())
    for v in values:
        out |= {fmt(v), fmt_ms(v), fmt(v / 1e9), fmt(v / 1e6), fmt(v / 1024), fmt(v * 100)}
    return out


@pytest.mark.parametrize("scene,scenario", FIELD_CASES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_number_in_a_field_scene_is_in_its_trace(scene: str, scenario: str,
                                                       variant: str) -> None:
    name = f"{scenario}/{variant}"
    allowed = trace_numbers(name)
    seen = 0
    for lang in ("zh", "en"):
        root = ET.fromstring(_panel_svg(scene, scenario, variant, lang))
        for t in root.iter(f"{NS}text"):
            words = IDENTIFIERS.sub(" ", " ".join(t.itertext()))  # a row: one label per tspan
            for number in NUMBER.findall(words):
                seen += 1
                assert number in allowed, f"{scene} {name} [{lang}]: {number!r} in {words!r}"
    assert seen >= 4


# ---- what each scene must show ----------------------------------------------------------------

def _words(scene: str, scenario: str, variant: str, lang: str = "en") -> str:
    return " | ".join("".join(t.itertext()) for t in
                      ET.fromstring(_panel_svg(scene, scenario, variant, lang)).iter(f"{NS}text"))


def test_drafts_show_tokens_per_step_tpot_and_kept_drafts() -> None:
    without, with_ = (_words("drafts", "spec_decode", v) for v in VARIANTS)
    assert "D: 1 token/step, TPOT 1 step" in without and "no drafts" in without
    d = view("spec_decode/with").requests["D"]
    assert f"D: 2.5 tokens/step, TPOT {fmt(d.tpot or 0)} steps" in with_
    assert "4/6 drafts kept" in with_  # D's two verify steps: 2 of 3 accepted each
    svg = _panel_svg("drafts", "spec_decode", "with", "en")
    assert svg.count('href="#tj-swatch-accepted"') == 1  # the key uses the shared swatches


def test_the_target_models_token_stands_where_the_first_draft_was_rejected() -> None:
    """Verification stops at the first rejected draft: the target model's own token takes its
    place (the correction), the drafts after it are thrown away, and only when every draft is
    accepted does the extra slot hold a token (the bonus)."""
    assert slot_kinds(3, 2, 3) == ["accepted", "accepted", "target", "empty"]
    assert slot_kinds(3, 0, 1) == ["target", "thrown", "thrown", "empty"]
    assert slot_kinds(3, 3, 4) == ["accepted", "accepted", "accepted", "target"]
    assert slot_kinds(3, 2, 2) == ["accepted", "accepted", "thrown", "empty"]  # max_tokens hit


def test_kv_capacity_writes_the_arithmetic_of_its_dtype() -> None:
    bf16, fp8 = (_words("kv_capacity", "fp8_kv", v) for v in VARIANTS)
    assert "KV per token 128 KiB (bf16), a 4-token block 512 KiB" in bf16
    assert "4.2 MB ÷ 512 KiB = 8 blocks = 32 tokens" in bf16
    assert "4.2 MB ÷ 256 KiB = 16 blocks = 64 tokens" in fp8
    assert "pushed out" in bf16 and "pushed out" not in fp8


def test_tp_shards_draws_one_gpu_per_shard_and_the_allreduce() -> None:
    for variant, gpus in (("without", 2), ("with", 4)):
        svg = _panel_svg("tp_shards", "tensor_parallel", variant, "en")
        assert svg.count('href="#tj-gpu-busy"') == gpus
        fig = view(f"tensor_parallel/{variant}").figures
        words = _words("tp_shards", "tensor_parallel", variant)
        assert f"one step {fmt(fig['decode_step_ms'])} ms" in words
        assert f"all-reduce {fmt_ms(fig['decode_allreduce_ms'])}" in words
        # the bar's parts add up to the step: memory + all-reduce + the fixed cost
        assert f"fixed {fmt_ms(fig['decode_overhead_ms'])}" in words
        parts = fig["decode_memory_ms"] + fig["decode_allreduce_ms"] + fig["decode_overhead_ms"]
        assert parts == pytest.approx(fig["decode_step_ms"], abs=0.01)


def test_disagg_shows_the_stall_then_a_steady_pace() -> None:
    colocated, split = (_words("disagg", "disaggregation", v) for v in VARIANTS)
    b0 = view("disaggregation/without").requests["B"].token_times
    assert fmt(max(b - a for a, b in zip(b0, b0[1:], strict=False))) == "4.3"  # 4.25, half up
    assert "4.3 stall" in colocated and "4.3" not in split and "stall" not in split
    assert "D's KV 0.6 ms" in split and "KV" not in colocated
    assert "prefill" in split and "D TTFT 5 ms" in split and "D TTFT 5 ms" in colocated


@pytest.mark.parametrize("scene", ["kv_capacity", "tp_shards"])
def test_capacity_scenes_refuse_a_trace_without_their_numbers(scene: str) -> None:
    panel = Panel(caption="x", scene=scene, scenario="batching", variant="with")
    trace = view("batching/with")
    with pytest.raises(InputError, match="scenario 'batching'"):
        draw_panel(_concept(panel), "fix", panel, trace, trace_values(trace), lang="en")


def test_showcase_names_each_field_scene() -> None:
    for scene, scenario in FIELD_CASES:
        assert sample_concept(scenario, scene, "zh").trouble.scene == scene
