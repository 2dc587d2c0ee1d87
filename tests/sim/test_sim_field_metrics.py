"""Goodput and SLO attainment, perceived wait, parallel sampling, Poisson/burst arrivals and the
latency-vs-load table (SIM-FIELD.md 5-8)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from simcli import TRACE_SCHEMA, sim_cli

from sim import WorkloadError, run_workload
from sim.generators import generate_requests, parse_generator

ENGINE = {"max_num_batched_tokens": 16, "max_num_seqs": 4}


def _cast(**extra: Any) -> dict[str, Any]:
    requests = [
        {"id": "A", "prompt_tokens": 3, "max_tokens": 4},
        {"id": "B", "prompt_tokens": 2, "max_tokens": 2},
        {"id": "D", "arrival": 1.0, "prompt_tokens": 12, "max_tokens": 3},
    ]
    return {"engine": ENGINE, "requests": requests, **extra}


def test_slo_goodput_attainment_and_meets_slo() -> None:
    # Unit cost: A emits at 1, 2, 3, 4 (TTFT 1, E2EL 4); B at 1, 2 (TTFT 1, E2EL 2);
    # D arrives at 1, computes 12 tokens in step 2, emits at 2, 3, 4 (TTFT 1, E2EL 3).
    trace = run_workload(_cast(slo={"e2el": 3.0}))
    requests = trace["requests"]
    assert [requests[r]["e2el"] for r in "ABD"] == [4.0, 2.0, 3.0]
    assert [requests[r]["meets_slo"] for r in "ABD"] == [False, True, True]
    summary = trace["summary"]
    assert summary["good_requests"] == 2
    assert summary["slo_attainment"] == pytest.approx(2 / 3)
    assert (
        summary["goodput"] == pytest.approx(2 / summary["duration"]) and summary["duration"] == 4.0
    )
    jsonschema.validate(trace, TRACE_SCHEMA)
    # No SLO: none of the SLO fields.
    plain = run_workload(_cast())
    assert "meets_slo" not in plain["requests"]["A"] and "slo_attainment" not in plain["summary"]


def test_perceived_wait_streaming_is_ttft_else_e2el() -> None:
    streamed = run_workload(_cast(streaming=True))["summary"]
    whole = run_workload(_cast(streaming=False))["summary"]
    assert streamed["perceived_wait"]["measure"] == "ttft"
    assert streamed["perceived_wait"]["mean"] == streamed["ttft"]["mean"] == 1.0
    assert whole["perceived_wait"]["mean"] == whole["e2el"]["mean"] == pytest.approx(3.0)
    assert "perceived_wait" not in run_workload(_cast())["summary"]
    with pytest.raises(WorkloadError) as err:
        run_workload(_cast(streaming="yes"))
    assert err.value.path == "streaming"


def test_parallel_sampling_fans_out_children_sharing_the_prompt() -> None:
    workload = {
        "engine": {
            **ENGINE,
            "max_num_batched_tokens": 64,
            "block_size": 4,
            "enable_prefix_caching": True,
        },
        "requests": [
            {"id": "P", "prompt_tokens": 9, "max_tokens": 3, "n": 3},
            {"id": "Q", "arrival": 0.0, "prompt_tokens": 9, "max_tokens": 1},
        ],
    }
    trace = run_workload(workload)
    assert list(trace["requests"]) == ["0_P", "1_P", "2_P", "Q"]
    assert list(trace["steps"][0]["scheduled"]) == ["0_P", "1_P", "2_P", "Q"]
    # The children share P's two full prompt blocks; Q's prompt of the same length does not.
    hits = {rid: r["prefix_hit_tokens"] for rid, r in trace["requests"].items()}
    assert hits == {"0_P": 0, "1_P": 8, "2_P": 8, "Q": 0}
    parent = trace["parents"]["P"]
    assert parent["n"] == 3 and parent["children"] == ["0_P", "1_P", "2_P"]
    firsts = [trace["requests"][c]["first_token"] for c in parent["children"]]
    finishes = [trace["requests"][c]["finish"] for c in parent["children"]]
    assert parent["first_token"] == min(firsts) and parent["finish"] == max(finishes)
    jsonschema.validate(trace, TRACE_SCHEMA)
    # Without prefix caching they are three independent requests with identical schedules.
    workload["engine"]["enable_prefix_caching"] = False
    trace = run_workload(workload)
    assert {trace["requests"][c]["output_tokens"] for c in parent["children"]} == {3}
    with pytest.raises(WorkloadError) as err:
        run_workload({"requests": [{"id": "P", "prompt_tokens": 3, "n": 0}]})
    assert err.value.path == "requests[0].n"


def test_poisson_arrivals_with_their_own_seed_keep_lengths_across_rates() -> None:
    def gen(rate: float) -> list[dict[str, Any]]:
        spec = {
            "n": 20,
            "seed": 3,
            "arrival": {"kind": "poisson", "rate": rate, "seed": 9},
            "prompt": {"kind": "uniform", "low": 5, "high": 50},
            "output": {"kind": "uniform", "low": 1, "high": 9},
        }
        return generate_requests(parse_generator(spec))

    slow, fast = gen(0.5), gen(4.0)
    assert [r["prompt_tokens"] for r in slow] == [r["prompt_tokens"] for r in fast]
    assert [r["max_tokens"] for r in slow] == [r["max_tokens"] for r in fast]
    # The same exponential draws scaled by 1/rate: arrival times scale by 8 (to rounding).
    for a, b in zip(slow, fast, strict=True):
        assert a["arrival"] == pytest.approx(8 * b["arrival"], abs=1e-5)


def test_burst_arrivals() -> None:
    spec = {
        "n": 7,
        "arrival": {"kind": "burst", "size": 3, "every": 10, "start": 2},
        "prompt": {"kind": "fixed", "value": 4},
        "output": {"kind": "fixed", "value": 2},
    }
    arrivals = [r["arrival"] for r in generate_requests(parse_generator(spec))]
    assert arrivals == [2.0, 2.0, 2.0, 12.0, 12.0, 12.0, 22.0]
    with pytest.raises(WorkloadError) as err:
        parse_generator({**spec, "arrival": {"kind": "burst", "size": 1.5, "every": 1}})
    assert err.value.path == "generate.arrival.size"


def test_sweep_rates_prints_the_latency_vs_load_table() -> None:
    proc = sim_cli("sweep", "--rates", "2,32", "--requests", "60")
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)
    assert table["rate_unit"] == "requests/s" and table["slo"] == {"ttft": 1000.0, "tpot": 25.0}
    low, high = table["rates"]
    assert [low["rate"], high["rate"]] == [2.0, 32.0]
    for row in (low, high):
        assert set(row) == {
            "rate", "output_throughput", "request_throughput", "goodput", "slo_attainment",
            "ttft", "tpot", "itl",
        }  # fmt: skip
        assert row["goodput"] <= row["request_throughput"]
        assert all(row[m]["p50"] <= row[m]["p99"] for m in ("ttft", "tpot", "itl"))
    # More load: more throughput, and queueing makes the slowest first tokens slower.
    assert high["output_throughput"] > low["output_throughput"]
    assert high["ttft"]["p99"] > low["ttft"]["p99"]
    bad = sim_cli("sweep", "--rates", "2,-1")
    assert bad.returncode == 2 and "positive" in bad.stderr


def test_every_ruler_pair_runs_on_as_many_gpus_on_both_sides() -> None:
    """A technique that takes more GPUs is compared with what those GPUs would do otherwise
    (tensor parallelism on 2 GPUs against 2 copies, one per GPU; disaggregation's 1 + 1 against
    2 colocated): a row never credits a technique with the GPUs it adds (reader sf2)."""
    from sim.presets.ruler_workloads import WORKLOADS
    from sim.presets.sweep import TECHNIQUES

    def gpus(engine: dict) -> int:
        if engine.get("policy") == "disagg":
            return gpus(engine["prefill"]) + gpus(engine["decode"])
        return int(engine.get("instances", 1)) * int(engine.get("capacity", {}).get("tp", 1))

    for tech in TECHNIQUES:
        baseline, variant = tech.engines(WORKLOADS[tech.workload].engine)
        assert gpus(baseline) == gpus(variant), tech.id
