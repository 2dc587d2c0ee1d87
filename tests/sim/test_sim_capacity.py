"""KV capacity from model x GPU x KV dtype, and tensor parallelism in capacity and roofline
(SIM-FIELD.md 2-3). The arithmetic is written out so a reader can check it by hand."""

from __future__ import annotations

import math
from typing import Any

import pytest
from simcli import TRACE_SCHEMA

from sim import WorkloadError, run_workload
from sim.config import CostConfig
from sim.cost import StepWork
from sim.cost.models import RooflineCost

GB = 1e9


def _capacity_trace(**capacity: Any) -> dict[str, Any]:
    engine = {"capacity": {"model": "llama-3-8b", "gpu": "h100-sxm", **capacity}}
    return run_workload(
        {"engine": engine, "requests": [{"id": "A", "prompt_tokens": 8, "max_tokens": 2}]}
    )


def test_llama3_8b_on_one_h100_fp8_holds_twice_the_blocks_of_bf16() -> None:
    # 80 GB x 0.9 = 72 GB usable; weights 8.03e9 params x 2 B = 16.06 GB; 55.94 GB for KV.
    usable = 80 * GB * 0.9
    weights = 8.03e9 * 2
    # KV per token = 2 (K, V) x 32 layers x 8 KV heads x 128 head_dim x bytes per element.
    bf16_token = 2 * 32 * 8 * 128 * 2  # 131,072 B = 128 KiB
    fp8_token = 2 * 32 * 8 * 128 * 1  # 65,536 B
    bf16_blocks = math.floor((usable - weights) / (16 * bf16_token))  # 55.94e9 / 2 MiB = 26,674
    fp8_blocks = math.floor((usable - weights) / (16 * fp8_token))  # 53,348
    assert (bf16_blocks, fp8_blocks) == (26674, 53348)

    bf16 = _capacity_trace(kv_dtype="bf16")["summary"]["capacity"]
    fp8 = _capacity_trace(kv_dtype="fp8")["summary"]["capacity"]
    assert bf16["num_blocks"] == bf16_blocks and fp8["num_blocks"] == fp8_blocks
    assert abs(fp8["num_blocks"] - 2 * bf16["num_blocks"]) <= 1
    assert bf16["kv_bytes_per_token"] == bf16_token and fp8["kv_bytes_per_token"] == fp8_token
    assert bf16["weight_bytes"] == weights and bf16["usable_bytes"] == pytest.approx(usable)
    assert bf16["kv_budget_bytes"] == pytest.approx(usable - weights)
    assert bf16["tokens_fit"] == math.floor((usable - weights) / bf16_token)
    assert bf16["block_bytes"] == 16 * bf16_token
    # The trace's engine is sized by it: the first step leaves all blocks but one free.
    trace = _capacity_trace(kv_dtype="fp8")
    assert trace["steps"][0]["free_blocks"] == fp8_blocks - 1


def test_capacity_echoes_every_term() -> None:
    terms = _capacity_trace()["summary"]["capacity"]
    assert set(terms) == {
        "model", "gpu", "tp", "kv_dtype", "gpu_memory_utilization", "hbm_bytes_per_gpu",
        "usable_bytes", "weight_bytes", "weight_bytes_per_gpu", "reserve_bytes",
        "kv_budget_bytes", "kv_bytes_per_token", "tokens_fit", "block_size", "block_bytes",
        "num_blocks",
    }  # fmt: skip


def test_fp8_halves_the_kv_part_of_the_roofline_memory_traffic() -> None:
    bf16 = RooflineCost(CostConfig(kind="roofline", kv_dtype="bf16"))
    fp8 = RooflineCost(CostConfig(kind="roofline", kv_dtype="fp8"))
    weights_only = StepWork(scheduled_tokens=32, context_tokens=0)
    decode = StepWork(scheduled_tokens=32, context_tokens=32 * 2048)
    kv_bf16 = bf16.memory_ms(decode) - bf16.memory_ms(weights_only)
    kv_fp8 = fp8.memory_ms(decode) - fp8.memory_ms(weights_only)
    assert kv_fp8 == pytest.approx(kv_bf16 / 2)
    # 65,536 context tokens x 128 KiB at 3.35 TB/s = 2.5038 ms in bf16.
    assert kv_bf16 == pytest.approx(32 * 2048 * 131072 / 3.35e12 * 1000)


def test_roofline_inherits_the_capacity_machine() -> None:
    workload = {
        "engine": {"capacity": {"model": "mistral-7b", "gpu": "a100-80gb", "kv_dtype": "fp8"}},
        "cost": {"kind": "roofline"},
        "requests": [{"id": "A", "prompt_tokens": 8, "max_tokens": 2}],
    }
    cost = run_workload(workload, detail=True)["cost"]
    assert (cost["model"], cost["gpu"], cost["kv_dtype"]) == ("mistral-7b", "a100-80gb", "fp8")


def test_70b_refused_on_one_gpu_fits_on_two() -> None:
    engine = {"capacity": {"model": "llama-3-70b", "gpu": "h100-sxm", "tp": 1}}
    request = [{"id": "A", "prompt_tokens": 8, "max_tokens": 2}]
    with pytest.raises(WorkloadError) as err:
        run_workload({"engine": engine, "requests": request})
    assert err.value.path == "engine.capacity"
    # 72.00 GB usable - 141.20 GB of weights: nothing left for KV.
    assert "72.00 GB usable" in err.value.problem and "141.20 GB weights" in err.value.problem
    assert "-69.20 GB for KV" in err.value.problem
    engine["capacity"]["tp"] = 2
    trace = run_workload({"engine": engine, "requests": request})
    terms = trace["summary"]["capacity"]
    # 2 x 72 GB - 141.2 GB = 2.8 GB; a block = 16 x 320 KiB = 5,242,880 B -> 534 blocks.
    assert terms["num_blocks"] == math.floor((144e9 - 141.2e9) / (16 * 327680)) == 534
    assert terms["weight_bytes_per_gpu"] == pytest.approx(70.6 * GB)
    assert trace["requests"]["A"]["finish"] is not None


def test_tp_roofline_allreduce_term() -> None:
    one = RooflineCost(CostConfig(kind="roofline", model="llama-3-70b", tp=1))
    two = RooflineCost(CostConfig(kind="roofline", model="llama-3-70b", tp=2))
    work = StepWork(scheduled_tokens=64, context_tokens=64 * 1024)
    assert one.allreduce_ms(work) == 0.0
    # 2 x 80 layers x (5 us + 2 x 1/2 x 64 tokens x 8192 x 2 B / 450 GB/s) in ms.
    expected = 160 * (5e-6 + 1.0 * 64 * 8192 * 2 / 450e9) * 1000
    assert two.allreduce_ms(work) == pytest.approx(expected)
    assert two.step_time(work) == pytest.approx(
        max(one.compute_ms(work), one.memory_ms(work)) / 2 + expected
    )


def test_capacity_errors() -> None:
    base = {"model": "llama-3-8b", "gpu": "h100-sxm"}
    bad: list[tuple[dict[str, Any], str]] = [
        ({"capacity": base, "num_blocks": 100}, "engine.num_blocks"),
        ({"capacity": {"gpu": "h100-sxm"}}, "engine.capacity.model"),
        ({"capacity": {**base, "kv_dtype": "int4"}}, "engine.capacity.kv_dtype"),
        (
            {"capacity": {**base, "gpu_memory_utilization": 1.5}},
            "engine.capacity.gpu_memory_utilization",
        ),
        ({"capacity": {**base, "size": 3}}, "engine.capacity.size"),
    ]
    for engine, path in bad:
        with pytest.raises(WorkloadError) as err:
            run_workload({"engine": engine, "requests": []})
        assert err.value.path == path


def test_capacity_trace_validates_against_the_schema() -> None:
    import jsonschema

    schema = TRACE_SCHEMA
    workload = {
        "engine": {
            "capacity": {"model": "llama-3-70b", "gpu": "h100-sxm", "tp": 2, "kv_dtype": "fp8"}
        },
        "cost": {"kind": "roofline"},
        "requests": [{"id": "A", "prompt_tokens": 8, "max_tokens": 2}],
    }
    for detail in (False, True):
        jsonschema.validate(run_workload(workload, detail=detail), schema)
