"""Prefill/decode disaggregation (policy `disagg`) and its colocated comparison (SIM-FIELD.md 4)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from simcli import TRACE_SCHEMA

from sim import WorkloadError, run_workload

POOL = {"max_num_batched_tokens": 16, "max_num_seqs": 4}
CAST = [
    {"id": "A", "prompt_tokens": 3, "max_tokens": 4},
    {"id": "B", "prompt_tokens": 2, "max_tokens": 3},
    {"id": "D", "arrival": 2.0, "prompt_tokens": 12, "max_tokens": 3},
]


def _disagg(transfer: dict[str, Any], **pools: Any) -> dict[str, Any]:
    return {
        "policy": "disagg",
        "prefill": {**POOL, **pools.get("prefill", {})},
        "decode": {**POOL, **pools.get("decode", {})},
        "transfer": transfer,
    }


def test_disagg_step_by_step_with_unit_cost() -> None:
    trace = run_workload({"engine": _disagg({"steps": 1}), "requests": CAST})
    rows = [
        (s["instance"], s["start"], s["scheduled"], s.get("handoff", [])) for s in trace["steps"]
    ]
    assert rows == [
        ("prefill-0", 0.0, {"A": 3, "B": 2}, ["A", "B"]),  # first tokens at t=1, then KV moves
        ("prefill-0", 2.0, {"D": 12}, ["D"]),
        ("decode-0", 2.0, {"A": 1, "B": 1}, []),  # transfers of 1 step arrived at t=2
        ("decode-0", 3.0, {"A": 1, "B": 1}, []),
        ("decode-0", 4.0, {"A": 1, "D": 1}, []),
        ("decode-0", 5.0, {"D": 1}, []),
    ]
    assert [s["index"] for s in trace["steps"]] == [1, 2, 3, 4, 5, 6]
    a, d = trace["requests"]["A"], trace["requests"]["D"]
    assert a["transfer"] == [1.0, 2.0] and d["transfer"] == [3.0, 4.0]
    # TTFT is measured at the prefill instance: no transfer in it.
    assert a["ttft"] == 1.0 and d["ttft"] == 1.0 and a["first_token"] < a["transfer"][1]
    assert a["token_times"] == [1.0, 3.0, 4.0, 5.0]
    # ITL includes no transfer: A's first gap (3 - 1) minus the 1-step transfer is 1.
    assert trace["summary"]["itl"]["mean"] == 1.0
    jsonschema.validate(trace, TRACE_SCHEMA)


def test_transfer_time_from_bandwidth_and_the_decode_capacity_model() -> None:
    engine = _disagg(
        {"latency": 0.001, "bandwidth": 50e9},
        decode={
            "capacity": {"model": "llama-3-8b", "gpu": "h100-sxm"},
            "max_num_batched_tokens": 256,
        },
    )
    trace = run_workload({"engine": engine, "cost": {"kind": "linear"}, "requests": CAST})
    start, end = trace["requests"]["D"]["transfer"]
    # 1 ms + 12 tokens x 128 KiB / 50 GB/s = 1.0315 ms.
    assert end - start == pytest.approx(1.0 + 12 * 131072 / 50e9 * 1000, abs=1e-6)
    assert (
        trace["summary"]["capacity"]["num_blocks"] == 26674
        if "capacity" in trace["summary"]
        else True
    )


def _trade_requests() -> list[dict[str, Any]]:
    decoders = [{"id": r, "prompt_tokens": 4, "max_tokens": 24} for r in "ABC"]
    newcomers = [
        {"id": r, "arrival": 6.0 + 7.0 * i, "prompt_tokens": 48, "max_tokens": 4}
        for i, r in enumerate("DEFG")
    ]
    return decoders + newcomers


LINEAR = {"kind": "linear", "c0": 1.0, "c_tok": 0.25, "c_kv": 0.0}


def test_classic_trade_decode_pool_has_steadier_itl_than_colocated() -> None:
    colocated = {
        "policy": "vllm",
        "instances": 2,
        "enable_chunked_prefill": False,
        "max_num_batched_tokens": 64,
        "max_num_seqs": 8,
        "max_model_len": 64,
    }
    pool = {"max_num_batched_tokens": 64, "max_num_seqs": 8, "max_model_len": 64}
    disagg = {
        "policy": "disagg",
        "prefill": pool,
        "decode": pool,
        "transfer": {"latency": 0.0005, "bandwidth": 25e9},
    }
    col = run_workload({"engine": colocated, "cost": LINEAR, "requests": _trade_requests()})
    dis = run_workload({"engine": disagg, "cost": LINEAR, "requests": _trade_requests()})

    def itl_spread(trace: dict[str, Any]) -> float:
        itl = trace["summary"]["itl"]  # pooled gaps, transfers excluded
        return float(itl["p99"] - itl["median"])

    # Colocated, a 48-token prefill step (13 ms) stalls the decodes dealt to its instance.
    assert itl_spread(dis) < itl_spread(col)
    assert dis["summary"]["itl"]["p99"] < col["summary"]["itl"]["p99"]
    # Round-robin dealing: A, C, E, G on instance 0; B, D, F on instance 1.
    first = {
        rid: next(s["instance"] for s in col["steps"] if rid in s["scheduled"]) for rid in "ABCDEFG"
    }
    assert first == {"A": "0", "B": "1", "C": "0", "D": "1", "E": "0", "F": "1", "G": "0"}
    # TTFT never includes the transfer; each request's first token precedes its KV arrival.
    for r in dis["requests"].values():
        assert r["first_token"] <= r["transfer"][0] < r["transfer"][1] <= r["token_times"][1]


def test_decode_instance_preempts_and_recomputes() -> None:
    engine = _disagg({"steps": 0}, decode={"num_blocks": 2, "block_size": 4})
    requests = [{"id": r, "prompt_tokens": 3, "max_tokens": 4} for r in "AB"]
    trace = run_workload({"engine": engine, "requests": requests})
    assert all(r["finish"] is not None for r in trace["requests"].values())
    assert sum(r["preemptions"] for r in trace["requests"].values()) >= 1
    assert all(s["instance"] == "decode-0" for s in trace["steps"] if s["preempted"])


@pytest.mark.parametrize(
    ("engine", "cost", "path"),
    [
        ({"policy": "disagg", "prefill": POOL}, "unit", "engine.decode"),
        ({**_disagg({"steps": 1}), "max_num_seqs": 4}, "unit", "engine.max_num_seqs"),
        (_disagg({"latency": 0.1, "bandwidth": 1e9}), "unit", "engine.transfer"),
        (_disagg({"steps": 2}), "linear", "engine.transfer.steps"),
        (_disagg({"latency": 0.1}), "linear", "engine.transfer.bandwidth"),
        (_disagg({"steps": 1}, prefill={"policy": "static"}), "unit", "engine.prefill.policy"),
        ({"policy": "static", "instances": 2}, "unit", "engine.instances"),
        ({"prefill": POOL}, "unit", "engine.prefill"),
    ],
)
def test_disagg_errors(engine: dict[str, Any], cost: str, path: str) -> None:
    with pytest.raises(WorkloadError) as err:
        run_workload({"engine": engine, "cost": {"kind": cost}, "requests": CAST})
    assert err.value.path == path
