"""SIM-specdecode.md's golden scenarios, step by step (recorded from vLLM 0.32's scheduler).

Notation of the spec: `A4(d3 a1)+2` = A scheduled 4 tokens, 3 of them drafts, 1 accepted,
2 tokens emitted. Here each step is written as {id: (scheduled, drafts, accepted, emitted)}.
"""

from __future__ import annotations

from typing import Any

import pytest
from simcli import TRACE_SCHEMA

from sim import SimulationError, WorkloadError, run_workload

Row = dict[str, tuple[int, int, int, int]]


def _engine(k: int, budget: int, **extra: Any) -> dict[str, Any]:
    return {
        "max_num_batched_tokens": budget,
        "max_num_seqs": 4,
        "num_speculative_tokens": k,
        **extra,
    }


def _req(
    rid: str, prompt: int, max_tokens: int, arrival: float = 0.0, **extra: Any
) -> dict[str, Any]:
    return {
        "id": rid,
        "arrival": arrival,
        "prompt_tokens": prompt,
        "max_tokens": max_tokens,
        **extra,
    }


def _rows(trace: dict[str, Any]) -> list[Row]:
    """Each step as {id: (scheduled, drafts, accepted, emitted tokens)}."""
    out = []
    for step in trace["steps"]:
        drafts = dict(step["drafts"])
        accepted = dict(step["accepted"])
        emitted = dict(step["emitted_tokens"])
        out.append(
            {
                rid: (n, drafts.get(rid, 0), accepted.get(rid, 0), emitted.get(rid, 0))
                for rid, n in step["scheduled"].items()
            }
        )
    return out


def test_s1_drafts_cycling_acceptance_and_trimming() -> None:
    trace = run_workload(
        {
            "engine": _engine(3, 64),
            "requests": [_req("A", 10, 9, accept=[3, 0, 1]), _req("B", 1, 4)],
        }
    )
    assert _rows(trace) == [
        {"A": (10, 0, 0, 1), "B": (1, 0, 0, 1)},
        {"A": (4, 3, 3, 4), "B": (4, 3, 3, 3)},
        {"A": (4, 3, 0, 1)},
        {"A": (4, 3, 1, 2)},
        {"A": (4, 3, 3, 1)},
    ]
    steps = trace["steps"]
    assert [s["free_blocks"] for s in steps] == [9998, 9999, 9998, 9998, 10000]
    assert steps[0]["padded"] == [] and steps[1]["finished"] == ["B"]
    assert steps[4]["finished"] == ["A"]
    assert trace["requests"]["A"]["output_tokens"] == 9
    assert trace["requests"]["B"]["output_tokens"] == 4
    # A verified 3 + 3 + 3 + 3 drafts, accepting 3, 0, 1, 3; B verified 3 and accepted 3.
    summary = trace["summary"]
    assert summary["drafts_verified"] == 15 and summary["drafts_accepted"] == 10
    assert summary["acceptance_rate"] == pytest.approx(10 / 15)
    assert summary["mean_accepted_length"] == pytest.approx(1 + 10 / 5)


def test_s2_padding_stalls_admission() -> None:
    workload = {
        "engine": _engine(3, 6),
        "requests": [_req("A", 4, 6, accept=[0]), _req("B", 1, 4, 1.0), _req("C", 1, 4, 1.0)],
    }
    trace = run_workload(workload)
    rows = _rows(trace)
    assert rows[0] == {"A": (4, 0, 0, 1)}
    assert rows[1:6] == [{"A": (4, 3, 0, 1)}] * 5
    assert trace["steps"][5]["finished"] == ["A"]
    assert all(s["waiting"] == ["B", "C"] for s in trace["steps"][1:5])
    assert rows[6] == {"B": (1, 0, 0, 1), "C": (1, 0, 0, 1)}
    assert rows[7] == {"B": (4, 3, 3, 3), "C": (2, 1, 1, 2)}
    assert rows[8] == {"C": (4, 3, 3, 1)}
    assert len(rows) == 9
    # Without speculation the same workload admits B and C at step 2.
    plain = run_workload({**workload, "engine": _engine(0, 6)})
    assert list(plain["steps"][1]["scheduled"]) == ["A", "B", "C"]


def test_s3_draft_slots_rollback_and_self_preemption() -> None:
    trace = run_workload(
        {
            "engine": _engine(3, 64, block_size=4, num_blocks=6),
            "requests": [_req("A", 7, 10, accept=[0]), _req("B", 7, 10)],
        }
    )
    rows, steps = _rows(trace), trace["steps"]
    assert rows[0] == {"A": (7, 0, 0, 1), "B": (7, 0, 0, 1)} and steps[0]["free_blocks"] == 2
    assert rows[1] == {"A": (4, 3, 0, 1), "B": (4, 3, 3, 4)} and steps[1]["free_blocks"] == 0
    assert rows[2] == {"A": (4, 3, 0, 1)}
    assert steps[2]["preempted"] == ["B"] and steps[2]["free_blocks"] == 3
    assert rows[3:10] == [{"A": (4, 3, 0, 1)}] * 7
    assert [s["free_blocks"] for s in steps[3:10]] == [2, 2, 2, 2, 1, 1, 6]
    assert steps[9]["finished"] == ["A"]
    assert rows[10] == {"B": (12, 0, 0, 1)} and steps[10]["free_blocks"] == 3
    assert rows[11] == {"B": (4, 3, 3, 4)} and steps[11]["free_blocks"] == 6
    assert steps[11]["finished"] == ["B"] and len(steps) == 12
    assert trace["requests"]["B"]["preemptions"] == 1


def test_max_model_len_caps_the_drafts() -> None:
    trace = run_workload(
        {"engine": _engine(4, 64, max_model_len=20), "requests": [_req("A", 10, 10)]}
    )
    assert _rows(trace) == [{"A": (10, 0, 0, 1)}, {"A": (5, 4, 4, 5)}, {"A": (4, 3, 3, 4)}]
    assert trace["steps"][-1]["finished"] == ["A"]


def test_prefix_hit_leaving_one_token_is_padded() -> None:
    ids = list(range(100, 109))
    trace = run_workload(
        {
            "engine": _engine(3, 64, block_size=4, enable_prefix_caching=True),
            "requests": [
                {"id": "X", "prompt_ids": ids, "max_tokens": 2},
                {"id": "Y", "arrival": 3.0, "prompt_ids": ids, "max_tokens": 3},
            ],
        }
    )
    steps = trace["steps"]
    assert [list(s["scheduled"]) for s in steps[:2]] == [["X"], ["X"]]
    assert trace["requests"]["Y"]["prefix_hit_tokens"] == 8
    # vLLM's step 3 (t=2) schedules nothing; the trace records only steps that ran.
    y_steps = [s for s in steps if "Y" in s["scheduled"]]
    assert _rows({"steps": y_steps}) == [{"Y": (4, 3, 0, 1)}, {"Y": (4, 3, 3, 2)}]
    assert y_steps[0]["padded"] == ["Y"] and y_steps[1]["padded"] == []
    assert [s["start"] for s in y_steps] == [3.0, 4.0]  # the spec's steps 4 and 5


def test_k_zero_trace_has_no_speculation_fields() -> None:
    trace = run_workload({"engine": _engine(0, 64), "requests": [_req("A", 10, 3)]})
    assert "drafts" not in trace["steps"][0] and "acceptance_rate" not in trace["summary"]


@pytest.mark.parametrize(
    ("workload", "path"),
    [
        (
            {"engine": {"policy": "static", "num_speculative_tokens": 2}},
            "engine.num_speculative_tokens",
        ),
        ({"engine": {"num_speculative_tokens": -1}}, "engine.num_speculative_tokens"),
        ({"requests": [_req("A", 3, 3, accept=[])]}, "requests[0].accept"),
        ({"requests": [_req("A", 3, 3, accept=[1, -1])]}, "requests[0].accept[1]"),
        (
            {
                "engine": {"num_speculative_tokens": 2, "max_model_len": 8},
                "requests": [_req("A", 5, 4)],
            },
            "requests[0]",
        ),
        ({"cost": {"kind": "unit", "draft": {"kind": "model", "params": 1e9}}}, "cost.draft"),
        ({"cost": {"kind": "roofline", "draft": {"kind": "model"}}}, "cost.draft.params"),
    ],
)
def test_bad_speculation_fields(workload: dict[str, Any], path: str) -> None:
    with pytest.raises(WorkloadError) as err:
        run_workload(workload)
    assert err.value.path == path


def test_padding_under_a_small_threshold_is_refused_like_vllm() -> None:
    workload = {
        "engine": _engine(3, 64, long_prefill_token_threshold=2),
        "requests": [_req("A", 1, 5), _req("B", 1, 3, 1.0)],
    }
    with pytest.raises(SimulationError, match="long_prefill_token_threshold 2 < 1 \\+ k"):
        run_workload(workload)


def test_draft_model_adds_roofline_cost_and_none_adds_nothing() -> None:
    base = {
        "engine": _engine(3, 256),
        "requests": [_req(f"R{i}", 64, 8) for i in range(4)],
    }
    roof = {"kind": "roofline", "model": "llama-3-8b", "gpu": "h100-sxm"}
    plain = run_workload({**base, "cost": roof})
    none = run_workload({**base, "cost": {**roof, "draft": {"kind": "none"}}})
    drafted = run_workload({**base, "cost": {**roof, "draft": {"kind": "model", "params": 1e9}}})
    assert none["steps"] == plain["steps"]
    assert [s["scheduled"] for s in drafted["steps"]] == [s["scheduled"] for s in plain["steps"]]
    # 3 passes of a 1e9-parameter model in bf16 reading 2 GB at 3.35 TB/s: ~1.79 ms per step.
    extra = drafted["steps"][0]["end"] - plain["steps"][0]["end"]
    assert extra == pytest.approx(3 * 2e9 / 3.35e12 * 1000, rel=1e-6)


def test_speculative_traces_validate_against_the_schema() -> None:
    import jsonschema

    schema = TRACE_SCHEMA
    workload = {
        "engine": _engine(3, 64),
        "cost": {"kind": "roofline", "draft": {"kind": "model", "params": 1e9}},
        "requests": [_req("A", 10, 9, accept=[3, 0, 1]), _req("B", 1, 4)],
    }
    for detail in (False, True):
        trace = run_workload(workload, detail=detail)
        jsonschema.validate(trace, schema)
    assert trace["engine"]["num_speculative_tokens"] == 3
    assert trace["cost"]["draft"] == {"kind": "model", "params": 1e9}
