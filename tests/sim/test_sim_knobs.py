"""Scenario knobs (`sim.presets.knobs`): each scenario declares the numbers a page may set, within
ranges; a knobbed preset runs with them and records them; a knob the scenario does not declare,
or a value out of range, is refused naming both."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import SimError
from sim.presets.knobs import KNOBS, KnobError, _accept_steps, apply_knobs
from sim.presets.scenarios import SCENARIOS, preset_workload, run_preset


def finished(trace: dict[str, Any]) -> set[str]:
    return {rid for rid, r in trace["requests"].items() if r["finish"] is not None}


def test_every_scenario_declares_its_knobs() -> None:
    assert set(KNOBS) == set(SCENARIOS)
    for sid, scenario in SCENARIOS.items():
        assert scenario.knobs == KNOBS[sid]
        assert len({k.id for k in scenario.knobs}) == len(scenario.knobs)
        for knob in scenario.knobs:
            assert knob.low < knob.high and knob.meaning and knob.unit
            assert set(knob.variants) <= {"without", "with"}


def test_a_knob_changes_the_run_and_is_recorded() -> None:
    plain = run_preset("chunked_prefill/with")
    longer = run_preset("chunked_prefill/with", knobs={"d_prompt": 30})
    assert longer["scenario"]["knobs"] == {"d_prompt": 30}
    assert "knobs" not in plain["scenario"]
    assert longer["requests"]["D"]["ttft"] > plain["requests"]["D"]["ttft"]
    d_tokens = sum(s["scheduled"].get("D", 0) for s in longer["steps"])
    assert d_tokens == 30 + 6 - 1  # the prompt, then one token per decode after the first


def test_k_applies_to_the_with_variant_only() -> None:
    without = apply_knobs("spec_decode", "without", preset_workload("spec_decode/without"),
                          {"draft_k": 5})
    with_ = apply_knobs("spec_decode", "with", preset_workload("spec_decode/with"),
                        {"draft_k": 5})
    assert "num_speculative_tokens" not in without["engine"]
    assert with_["engine"]["num_speculative_tokens"] == 5


def test_acceptance_spreads_the_accepted_drafts_evenly() -> None:
    assert _accept_steps(0.5, 3, 4) == [1, 2, 1, 2]
    assert _accept_steps(1.0, 3, 3) == [3, 3, 3]
    assert _accept_steps(0.0, 3, 3) == [0, 0, 0]
    all_in = run_preset("spec_decode/with", knobs={"acceptance": 1.0, "draft_k": 2})
    assert all_in["summary"]["acceptance_rate"] == 1.0
    none = run_preset("spec_decode/with", knobs={"acceptance": 0.0})
    assert none["summary"]["acceptance_rate"] == 0.0
    assert len(none["steps"]) > len(all_in["steps"])


def test_block_size_and_budget_reach_every_engine() -> None:
    split = apply_knobs("disaggregation", "with", preset_workload("disaggregation/with"),
                        {"d_prompt": 20})
    assert [r["prompt_tokens"] for r in split["requests"] if r["id"] == "D"] == [20]
    paged = apply_knobs("kv_alloc", "with", preset_workload("kv_alloc/with"), {"block_size": 8})
    assert paged["engine"]["block_size"] == 8
    shared = apply_knobs("prefix_cache", "with", preset_workload("prefix_cache/with"),
                         {"d_prompt": 30})
    (d,) = [r for r in shared["requests"] if r["id"] == "D"]
    assert len(d["prompt_ids"]) == 30 and d["prompt_ids"][:8] == list(range(1, 9))


def test_the_batch_knob_copies_the_first_request() -> None:
    trace = run_preset("arithmetic/with", knobs={"batch": 8, "prompt": 256})
    assert list(trace["requests"]) == [f"R{i}" for i in range(8)]
    assert trace["figures"]["batch"] == 8


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ({"warp": 3}, "has no knob 'warp'"),
        ({"d_prompt": 41}, "must be 2-40 tokens"),
        ({"d_prompt": 12.5}, "whole number"),
        ({"acceptance": 1.5}, "must be 0-1 share"),
    ],
)
def test_bad_knobs_are_refused(knobs: dict[str, float], words: str) -> None:
    with pytest.raises(KnobError) as err:
        run_preset("spec_decode/with", knobs=knobs)
    assert words in str(err.value) and "spec_decode" in str(err.value)
    assert isinstance(err.value, SimError)


@pytest.mark.parametrize("sid", sorted(KNOBS))
def test_every_knob_extreme_runs_and_finishes_what_the_preset_finishes(sid: str) -> None:
    """Each knob alone at either end, and all at their ends together: the run is accepted and
    every request that finishes in the preset still finishes."""
    knobs = KNOBS[sid]
    combos: list[dict[str, float]] = []
    for knob in knobs:
        combos += [{knob.id: knob.low}, {knob.id: knob.high}]
    combos += [dict(zip([k.id for k in knobs], ends, strict=True))
               for ends in itertools.product(*[(k.low, k.high) for k in knobs])]
    for variant in ("without", "with"):
        done = finished(run_preset(f"{sid}/{variant}"))
        for values in combos:
            trace = run_preset(f"{sid}/{variant}", knobs=values)
            # (the batch knob may drop requests: those still there must finish)
            assert done & set(trace["requests"]) <= finished(trace), (variant, values)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_value_in_range_runs(data: st.DataObject) -> None:
    sid = data.draw(st.sampled_from(sorted(KNOBS)))
    values: dict[str, float] = {}
    for knob in KNOBS[sid]:
        if data.draw(st.booleans()):
            values[knob.id] = (
                data.draw(st.integers(int(knob.low), int(knob.high)))
                if knob.integer
                else data.draw(st.floats(knob.low, knob.high))
            )
    variant = data.draw(st.sampled_from(["without", "with"]))
    trace = run_preset(f"{sid}/{variant}", knobs=values)
    assert trace["steps"] and trace["scenario"].get("knobs", {}) == values
