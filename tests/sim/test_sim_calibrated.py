"""The calibrated cost model against its published calibration set: the fit's errors, the
shapes it must keep (FP8 slower at short context, tp's sub-linear speed-up, all-reduces of
tens of microseconds), and that its fast predictions are what the simulator itself reports."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from sim.api import run_workload
from sim.config import CostConfig, DraftConfig
from sim.cost import StepWork
from sim.cost.calibrated import CalibratedCost, fitted_params
from sim.cost.calibration_report import fitted_document, is_current, render
from sim.cost.calibration_set import (
    Measurement,
    calibrated_cost,
    load_set,
    predict,
    request_sets,
    workload,
)
from sim.cost.collective import allreduce_seconds
from sim.cost.data import calibration_table
from sim.cost.fit import Report, fit_and_validate


@pytest.fixture(scope="module")
def measurements() -> tuple[Measurement, ...]:
    return load_set()


@pytest.fixture(scope="module")
def report(measurements: tuple[Measurement, ...]) -> Report:
    return fit_and_validate(measurements)


def errors(values: tuple[float, ...], ms: tuple[Measurement, ...]) -> np.ndarray:
    return np.array([abs(p - m.value) / m.value for p, m in zip(values, ms, strict=True)])


def test_the_fit_meets_the_error_targets(report: Report, measurements: Any) -> None:
    assert len(measurements) >= 15
    fit_err = errors(report.predicted, measurements)
    assert np.median(fit_err) <= 0.15
    ratios = [max(p / m.value, m.value / p) for p, m in zip(report.predicted, measurements, strict=True)]
    assert max(ratios) <= 2.0
    assert np.median(errors(report.left_out, measurements)) <= 0.20
    text = render(report, measurements, current=True)
    assert f"{len(measurements)} measurements: median |error|" in text
    assert "leave-one-out median" in text


def test_the_stored_fit_is_this_fit(report: Report, measurements: Any) -> None:
    """fitted.json is what `python -m sim calibrate --write` makes of the committed data."""
    stored = calibration_table("fitted")
    assert is_current(fitted_document(report, measurements), stored)
    assert not is_current(fitted_document(report, measurements), {**stored, "tp_sync_ms": 1.0})


def test_every_number_names_its_source() -> None:
    for entry in calibration_table("measurements")["measurements"]:
        assert entry["source"]["url"].startswith("https://"), entry["id"]
        assert entry["source"]["where"], entry["id"]
        assert entry["value"] > 0
    sourced = calibration_table("sourced")
    for table in (sourced["attention_compute_fraction"], sourced["links"]):
        assert all(item["source"] for item in table.values())
    fitted = calibration_table("fitted")
    assert all(fitted["fitted_to"][name] for name in fitted["fitted_to"])


def _decode_ms(context: int, kv_dtype: str, batch: int = 1, tp: int = 1) -> float:
    cost = CalibratedCost(
        CostConfig(kind="calibrated", model="llama-3-8b", gpu="h100-sxm", kv_dtype=kv_dtype, tp=tp)
    )
    return cost.step_time(StepWork(batch, batch * context, sequences=batch))


def test_fp8_is_slower_at_short_context_and_faster_at_long() -> None:
    """The vLLM FP8 KV-cache blog: FP8 decodes slower than bf16 below a break-even context
    (about 7k tokens for Llama-3.1-8B on H100) and faster above it."""
    for context in (256, 1024, 4096):
        assert _decode_ms(context, "fp8") > _decode_ms(context, "bf16")
    for context in (65536, 125000):
        assert _decode_ms(context, "fp8") < _decode_ms(context, "bf16")
    # The per-token KV cost falls to about half, as the blog's ITL slopes (54%).
    slope = {d: (_decode_ms(100000, d) - _decode_ms(0, d)) / 100000 for d in ("bf16", "fp8")}
    assert 0.45 < slope["fp8"] / slope["bf16"] < 0.65


def test_tensor_parallel_speeds_up_sub_linearly() -> None:
    """More GPUs shorten a small model's decode step, less and less (fixed costs and the
    all-reduces do not split); 1 -> 8 GPUs is far from 8x."""
    steps = {tp: _decode_ms(512, "bf16", batch=4, tp=tp) for tp in (1, 2, 4, 8)}
    speedups = [steps[1] / steps[tp] for tp in (2, 4, 8)]
    assert speedups == sorted(speedups) and speedups[0] > 1.1
    gains = [speedups[0], speedups[1] / speedups[0], speedups[2] / speedups[1]]
    assert all(1.0 < g < 1.6 for g in gains)  # each doubling of GPUs buys well under 2x
    assert gains[2] < gains[1]  # and the last one least (measured: 1.42, 1.37, 1.19)
    assert speedups[2] < 4.0


def test_an_allreduce_costs_tens_of_microseconds_on_nvlink() -> None:
    cost = CalibratedCost(CostConfig(kind="calibrated", model="llama-3-8b", gpu="h100-sxm", tp=8))
    per_call_us = cost.allreduce_ms(StepWork(4, 2048)) / cost.machine.allreduce_calls * 1000
    assert 10 < per_call_us < 100
    nvlink = fitted_params("h100-sxm").link
    assert allreduce_seconds(1 << 20, 1, nvlink) == 0.0
    pcie, network = (fitted_params("h100-sxm", k).link for k in ("pcie", "network"))
    for link in (pcie, network):
        assert allreduce_seconds(1 << 20, 8, link) > allreduce_seconds(1 << 20, 8, nvlink)


def _simulated(m: Measurement) -> float:
    """The measurement's metric from a real simulator run on the calibrated cost model (the
    older harnesses' extra fixed cost given as cost.overhead)."""
    fitted, entry = calibration_table("fitted"), m.entry
    cost = calibrated_cost(entry)
    era = entry.get("software_era", fitted["reference_era"])
    if era != fitted["reference_era"]:
        cost["overhead"] = fitted["step_overhead_ms"][entry["gpu"]] + fitted["era_extra_step_ms"][era]
    trace = run_workload(workload(entry, request_sets(entry)[0], cost))
    summary = trace["summary"]
    return {
        "duration_s": summary["duration"] / 1000.0,
        "batch_latency_ms": summary["duration"],
        "median_itl_ms": summary["itl"]["median"],
        "output_throughput": summary["output_throughput"] * 1000.0,
    }[m.metric]


@pytest.mark.parametrize(
    "mid",
    ["lambda-h100-llama3-8b-tp2", "vllm-nightly-h100-llama70b-tp4", "vllm-nightly-a100-llama8b-tp1"],
)
def test_fast_predictions_are_the_simulators_numbers(mid: str, measurements: Any) -> None:
    m = next(x for x in measurements if x.id == mid)
    fitted, entry = calibration_table("fitted"), m.entry
    params = fitted_params(entry["gpu"])
    era = entry["software_era"]
    if era != fitted["reference_era"]:
        extra = fitted["era_extra_step_ms"][era]
        params = replace(params, overhead_ms=params.overhead_ms + extra)
    assert predict(m, params) == pytest.approx(_simulated(m), rel=1e-6)


def test_a_workload_selects_the_calibrated_model() -> None:
    capacity = {"model": "llama-3-8b", "gpu": "h100-sxm"}
    engine = {"max_num_batched_tokens": 64, "max_num_seqs": 8, "capacity": capacity}
    requests = [{"id": "A", "arrival": 0.0, "prompt_tokens": 20, "max_tokens": 4}]
    trace = run_workload(
        {"engine": engine, "cost": {"kind": "calibrated"}, "requests": requests}, detail=True
    )
    # The machine comes from the engine's capacity, as the roofline's does.
    assert trace["cost"] == {
        "kind": "calibrated", "time_unit": "ms", "model": "llama-3-8b", "gpu": "h100-sxm",
        "kv_dtype": "bf16",
    }
    roof = run_workload({"engine": engine, "cost": {"kind": "roofline"}, "requests": requests})
    # Same schedule, calibrated steps slower than the bare roofline's (fixed costs, efficiencies).
    assert [s["scheduled"] for s in trace["steps"]] == [s["scheduled"] for s in roof["steps"]]
    assert trace["summary"]["duration"] > 1.2 * roof["summary"]["duration"]
    two = {**engine, "capacity": {**capacity, "tp": 2}}
    over = {link: run_workload({"engine": two, "cost": {"kind": "calibrated", "link": link},
                                "requests": requests}, detail=True) for link in ("nvlink", "pcie")}
    assert over["pcie"]["cost"]["link"] == "pcie" and over["pcie"]["cost"]["tp"] == 2
    assert over["pcie"]["summary"]["duration"] > over["nvlink"]["summary"]["duration"]


def test_a_draft_model_costs_time_on_the_calibrated_model_too() -> None:
    work = StepWork(4, 400, draft_runs=3, draft_batch=4, sequences=4)
    plain = CalibratedCost(CostConfig(kind="calibrated"))
    drafted = CalibratedCost(
        CostConfig(kind="calibrated", draft=DraftConfig(kind="model", params=1e9))
    )
    assert plain.draft_ms(work) == 0.0
    # Three passes of a 1B model, each reading its 2 GB of weights at the fitted bandwidth.
    assert drafted.step_time(work) - plain.step_time(work) == pytest.approx(
        3 * 2e9 / (3.35e12 * calibration_table("fitted")["weight_bandwidth_fraction"]) * 1000
    )
