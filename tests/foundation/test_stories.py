"""Scenario stories are told from the runs (issue 21, P21): the prompt's account of each variant
comes from its simulated trace, so a preset edit changes it; and a caption that cannot describe
its own picture (a number equal in both panels, an event count of 0) is refused with its path."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.fields.cache import forget_runs
from pipeline.fields.serving.catalogue import build_catalogue
from pipeline.fields.serving.stories import story
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import parse_plan
from pipeline.simulate.checks import page_violations
from sim.presets.scenarios import SCENARIOS, run_preset

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference"


def test_a_story_says_what_the_run_does() -> None:
    told = story(TraceView.from_json(run_preset("batching/without", detail=True)))
    assert told.startswith("static batching")
    assert "D (arrives for step" in told and "waits" in told
    stalled = story(TraceView.from_json(run_preset("preemption/without", detail=True)))
    assert "STALLS" in stalled and "never finishes" in stalled
    preempting = story(TraceView.from_json(run_preset("preemption/with", detail=True)))
    assert "preempted in step" in preempting


def test_a_stall_is_told_step_by_step_and_a_stalled_run_has_no_duration() -> None:
    """The stalled preemption run: B and D get no token in steps 4, 5 and 6 (one span, not
    "step 4 (3 such steps)"), the run stops after its last step, and it offers no duration or
    throughput placeholder (its summary's zeros are not measurements)."""
    trace = TraceView.from_json(run_preset("preemption/without", detail=True))
    told = story(trace)
    idle = [s.index for s in trace.steps
            if {"B", "D"} <= set(s.running) and not {"B", "D"} & set(s.scheduled)]
    assert f"steps {idle[0]}-{idle[-1]} (B, D)" in told, told
    assert f"STALLS after step {len(trace.steps)}" in told
    values = trace_values(trace)
    assert "duration" not in values and "throughput" not in values
    assert "duration" in trace_values(TraceView.from_json(run_preset("preemption/with")))


def test_changing_a_preset_changes_its_story(monkeypatch: pytest.MonkeyPatch) -> None:
    before = story(TraceView.from_json(run_preset("batching/with", detail=True)))
    request = SCENARIOS["batching"].variants["with"]["requests"][0]
    monkeypatch.setitem(request, "max_tokens", request["max_tokens"] + 3)
    forget_runs()
    after = story(TraceView.from_json(run_preset("batching/with", detail=True)))
    assert after != before
    assert "A (arrives for step 1)" in after


def test_the_catalogue_carries_every_variants_story() -> None:
    for entry in build_catalogue().scenarios.values():
        assert set(entry.stories) == {"without", "with"}
        assert all(len(told) > 40 for told in entry.stories.values()), entry.id


def _plan_with(edit: dict) -> list[str]:
    data = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    card = next(c for c in data["concepts"] if c["fix"].get("scenario") == "prefix_cache")
    for side, caption in edit.items():
        card[side]["caption"] = caption
    found, _ = page_violations(parse_plan(data), ingest_folder(EXAMPLE))
    return [str(v) for v in found]


def test_a_number_equal_in_both_panels_under_change_words_is_refused() -> None:
    found = _plan_with({"trouble": "共 {steps} 步", "fix": "缩短到 {steps} 步"})
    assert any(".fix.caption: {steps} is 8 in both panels" in v for v in found), found


def test_a_number_said_to_stay_the_same_is_not_refused() -> None:
    found = _plan_with({"trouble": "共 {steps} 步", "fix": "还是 {steps} 步"})
    assert not any("in both panels" in v for v in found), found


def test_an_event_count_of_zero_is_refused() -> None:
    found = _plan_with({"trouble": "D 命中 {D.prefix_hit_tokens} 个"})
    assert any(".trouble.caption: {D.prefix_hit_tokens} is 0 in this run" in v for v in found)


def test_an_slo_run_tells_who_meets_its_targets_as_the_slo_scene_judges() -> None:
    """A caption about goodput is written from who meets the SLOs, so the story counts them
    with the slo scene's own verdicts; runs without targets say nothing of SLOs."""
    from pipeline.fields.serving.scenes.slo import missed, read_slo

    for variant in ("without", "with"):
        trace = TraceView.from_json(run_preset(f"goodput/{variant}", detail=True))
        slo_ttft, slo_tpot = read_slo(trace)
        met = [r for r, q in trace.requests.items() if not any(missed(q, slo_ttft, slo_tpot))]
        told = story(trace)
        assert f"{len(met)} of {len(trace.requests)} requests meet them ({', '.join(met)})" in told
        for rid in trace.requests:
            if rid not in met:
                assert f"{rid} (" in told.split("missed by", 1)[1]
    assert "SLO" not in story(TraceView.from_json(run_preset("batching/with", detail=True)))


def test_anonymous_requests_are_told_as_not_the_cast() -> None:
    told = story(TraceView.from_json(run_preset("arithmetic/with", detail=True)))
    assert "anonymous copies, not the cast" in told
    assert "anonymous" not in story(TraceView.from_json(run_preset("batching/with", detail=True)))
