"""The sim stage's artifact: the typed trace views cover the trace contract (the JSON Schema), agree
with the JSON of every preset, and `SimResults` saves and loads the simulator's bytes unchanged."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from pipeline.artifacts.sim import SimResults, SweepView, trace_values
from pipeline.artifacts.trace import (
    EngineView,
    RequestView,
    StepView,
    SummaryView,
    TraceView,
)
from sim.presets.scenarios import SCENARIOS, run_preset

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "sim" / "trace.schema.json").read_text(encoding="utf-8"))
# Schema parts no page reader needs yet: nested engine configs and the capacity arithmetic.
NOT_VIEWED = {
    "engine": {"capacity", "prefill", "decode", "transfer"},
    "summary": {"capacity", "perceived_wait"},
}
PRESETS = [f"{sid}/{v}" for sid in SCENARIOS for v in ("without", "with")]


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


@pytest.mark.parametrize(
    "where,view",
    [
        (SCHEMA["$defs"]["step"]["properties"], StepView),
        (SCHEMA["$defs"]["request"]["properties"], RequestView),
        (SCHEMA["properties"]["engine"]["properties"], EngineView),
        (SCHEMA["$defs"]["summary"]["properties"], SummaryView),
    ],
    ids=["step", "request", "engine", "summary"],
)
def test_every_schema_field_has_a_view_field(where: dict, view: type) -> None:
    skip = NOT_VIEWED.get(view.__name__.removesuffix("View").lower(), set())
    assert set(where) - skip <= _names(view)


def test_every_top_level_field_is_viewed() -> None:
    assert set(SCHEMA["properties"]) <= _names(TraceView)


@pytest.mark.parametrize("name", PRESETS)
def test_views_agree_with_the_json(name: str) -> None:
    data = run_preset(name, detail=True)
    trace = TraceView.from_json(data)
    assert [s.index for s in trace.steps] == [s["index"] for s in data["steps"]]
    assert list(trace.requests) == list(data["requests"])
    for step, raw in zip(trace.steps, data["steps"], strict=True):
        assert list(step.scheduled.items()) == list(raw["scheduled"].items())
        assert step.waiting == tuple(raw["waiting"]) and step.free_blocks == raw["free_blocks"]
        assert step.duration == raw["end"] - raw["start"]
        assert dict(step.drafts) == dict(raw.get("drafts", []))
        assert dict(step.accepted) == dict(raw.get("accepted", []))
        assert step.instance == raw.get("instance")
    for rid, req in trace.requests.items():
        raw = data["requests"][rid]
        assert req.id == rid and list(req.token_times) == raw["token_times"]
        assert (req.first_token, req.finish, req.ttft) == (
            raw["first_token"], raw["finish"], raw["ttft"])
        assert req.transfer == (tuple(raw["transfer"]) if "transfer" in raw else None)
    assert trace.engine is not None
    assert trace.engine.max_num_batched_tokens == data["engine"]["max_num_batched_tokens"]
    assert trace.cost.time_unit == data["cost"]["time_unit"]
    assert (trace.scenario.id, trace.scenario.variant) == tuple(name.split("/"))
    assert trace.summary.output_throughput == data["summary"]["output_throughput"]


def test_speculative_and_disaggregated_fields_are_read() -> None:
    spec = TraceView.from_json(run_preset("spec_decode/with", detail=True))
    assert any(s.drafts for s in spec.steps) and spec.summary.acceptance_rate is not None
    assert spec.engine is not None and spec.engine.num_speculative_tokens == 3
    disagg = TraceView.from_json(run_preset("disaggregation/with", detail=True))
    assert {s.instance for s in disagg.steps} >= {"prefill-0", "decode-0"}
    assert all(r.transfer is not None for r in disagg.requests.values())


def test_a_trace_without_detail_has_no_engine_and_empty_detail_fields() -> None:
    trace = TraceView.from_json(run_preset("batching/with", detail=False))
    assert trace.engine is None and trace.cost.kind is None and trace.scenario.id is None
    assert all(not s.blocks and not s.tokens for s in trace.steps)


def test_save_then_load_keeps_the_simulators_bytes(tmp_path: Path) -> None:
    sweep = {"metrics": ["ttft"], "workload": {"description": "w"},
             "techniques": [{"id": "x", "label": "X", "change_pct": {"ttft": -5.0, "itl": None}}]}
    names = ["batching/with", "preemption/without"]
    results = SimResults({n: run_preset(n, detail=True) for n in names}, sweep)
    results.save(tmp_path / "a")
    loaded = SimResults.load(tmp_path / "a")
    loaded.save(tmp_path / "b")
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()
    assert sorted(loaded.traces) == names
    assert trace_values(loaded.traces["batching/with"]) == trace_values(
        results.traces["batching/with"])
    assert loaded.sweep == SweepView.from_json(sweep)
    assert loaded.sweep is not None and loaded.sweep.technique("x") is not None
    assert loaded.sweep.techniques[0].change_pct == {"ttft": -5.0, "itl": None}
