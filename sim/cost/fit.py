"""Fit the calibrated cost model to the calibration set (the fit script behind
`python -m sim calibrate`; `--write` stores the result in sim/data/calibration/fitted.json).

Every metric is a sum of step times picked by the schedule (a duration, a median gap, a mean
over a sweep), and a step time is linear in the parameters once each max() has chosen its
side. So the fit alternates: choose the sides and the picked steps at the current parameters,
then solve the relative-error least squares for the parameters with bounds (no efficiency
above 1, no negative time) by projected non-negative least squares; repeat until nothing moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim.cost.calibrated import Params
from sim.cost.calibration_set import (
    MS_PER_S,
    Measurement,
    predict,
    selection,
    step_times,
    terms_of,
)

GPUS = ("a100-80gb", "h100-sxm", "h200")
REFERENCE_ERA = "vllm-0.19"  # the newest measured vLLM: the simulator's own overheads
ERAS = ("vllm-0.5", "vllm-nightly")  # older harnesses: each its own extra fixed cost per step
NAMES = (
    GPUS
    + ERAS
    + (
        "compute_scale",
        "weight_scale",
        "kv_scale",
        "fp8_kv_scale",
        "fp8_step_ms",
        "sequence_ms",
        "link_latency_ms",
        "link_ms_per_byte",
        "tp_sync_ms",
    )
)
AT = {name: i for i, name in enumerate(NAMES)}
# Scales are 1 / efficiency: at least 1. Times are at least 0.
LOWER = np.array([1.0 if name.endswith("_scale") else 0.0 for name in NAMES])
START = np.array(
    [2.0] * len(GPUS) + [1.0] * len(ERAS) + [1.6, 1.2, 1.2, 1.2, 0.1, 0.01, 0.01, 1e-8, 0.01]
)
MAX_ROUNDS = 60
US_PER_MS = 1000.0


def params_of(theta: np.ndarray, gpu: str, era: str = REFERENCE_ERA) -> Params:
    """The `Params` of GPU `gpu` measured in `era` from the vector `theta` (order: `NAMES`)."""
    per_byte = float(theta[AT["link_ms_per_byte"]])
    extra = float(theta[AT[era]]) if era != REFERENCE_ERA else 0.0
    return Params(
        overhead_ms=float(theta[AT[gpu]]) + extra,
        compute_scale=float(theta[AT["compute_scale"]]),
        weight_scale=float(theta[AT["weight_scale"]]),
        kv_scale=float(theta[AT["kv_scale"]]),
        fp8_kv_scale=float(theta[AT["fp8_kv_scale"]]),
        fp8_step_ms=float(theta[AT["fp8_step_ms"]]),
        seq_ms=float(theta[AT["sequence_ms"]]),
        link={
            "latency": float(theta[AT["link_latency_ms"]]) / MS_PER_S,
            "bandwidth": MS_PER_S / per_byte if per_byte > 0 else float("inf"),
        },
        tp_sync_ms=float(theta[AT["tp_sync_ms"]]),
    )


def _target(m: Measurement) -> float:
    """The measured value in the metric's linear unit (ms of steps, or microseconds)."""
    if m.metric == "duration_s":
        return m.value * MS_PER_S
    if m.metric == "output_throughput":
        return m.runs[0].output_tokens / m.value * MS_PER_S
    return m.value


def row(m: Measurement, theta: np.ndarray) -> tuple[np.ndarray, float]:
    """(coefficients, constant) with linear metric = coefficients @ theta + constant, the max()
    sides and picked steps taken at `theta`."""
    coef = np.zeros(len(NAMES))
    if m.metric == "allreduce_us":
        tp = int(m.entry["tp"])
        coef[AT["link_latency_ms"]] = US_PER_MS
        coef[AT["link_ms_per_byte"]] = US_PER_MS * 2.0 * (tp - 1) / tp * float(m.entry["bytes"])
        return coef, 0.0
    assert m.machine is not None
    era = m.entry.get("software_era", REFERENCE_ERA)
    mach, p = m.machine, params_of(theta, m.machine.gpu, era)
    times = [step_times(m, run, p) for run in m.runs]
    constant = 0.0
    share = 2.0 * (mach.tp - 1) / mach.tp
    for w, run in zip(selection(m, times), m.runs, strict=True):
        terms = terms_of(mach, run)
        dense_side = p.compute_scale * terms["dense"] >= p.weight_scale * terms["weights"]
        coef[AT["compute_scale"]] += w @ np.where(dense_side, terms["dense"], 0.0)
        coef[AT["weight_scale"]] += w @ np.where(dense_side, 0.0, terms["weights"])
        kv_scale = p.fp8_kv_scale if mach.fp8 else p.kv_scale
        compute_side = terms["attention"] >= kv_scale * terms["kv"]
        constant += float(w @ np.where(compute_side, terms["attention"], 0.0))
        kv_name = "fp8_kv_scale" if mach.fp8 else "kv_scale"
        coef[AT[kv_name]] += w @ np.where(compute_side, 0.0, terms["kv"])
        coef[AT[mach.gpu]] += w.sum()
        if era != REFERENCE_ERA:
            coef[AT[era]] += w.sum()
        coef[AT["sequence_ms"]] += w @ terms["sequences"]
        if mach.fp8:
            coef[AT["fp8_step_ms"]] += w.sum()
        if mach.allreduce_calls:
            coef[AT["link_latency_ms"]] += mach.allreduce_calls * w.sum()
            coef[AT["tp_sync_ms"]] += mach.allreduce_calls * w.sum()
            coef[AT["link_ms_per_byte"]] += (
                mach.allreduce_calls * share * float(w @ terms["message_bytes"])
            )
    return coef, constant


def _nonnegative_lstsq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """min |a x - b| with x >= 0: least squares on the free columns, dropping any that go
    negative, until none does (columns scaled to unit norm for conditioning)."""
    norms = np.linalg.norm(a, axis=0)
    free = norms > 0
    x = np.zeros(a.shape[1])
    while free.any():
        scaled = a[:, free] / norms[free]
        sol = np.linalg.lstsq(scaled, b, rcond=None)[0] / norms[free]
        if (sol >= 0).all():
            x[:] = 0.0
            x[free] = sol
            return x
        idx = np.flatnonzero(free)
        free[idx[sol < 0]] = False
    return x


def fit(measurements: Sequence[Measurement], start: np.ndarray | None = None) -> np.ndarray:
    """The parameter vector that minimises the relative errors on `measurements`."""
    theta = np.array(START if start is None else start, dtype=float)
    targets = np.array([_target(m) for m in measurements])
    for _ in range(MAX_ROUNDS):
        rows = [row(m, theta) for m in measurements]
        a = np.array([c for c, _ in rows]) / targets[:, None]
        consts = np.array([k for _, k in rows])
        b = 1.0 - (consts + a @ LOWER * targets) / targets
        new = LOWER + _nonnegative_lstsq(a, b)
        # Parameters no measurement constrains keep their start (nothing to fit them to).
        new = np.where(np.linalg.norm(a, axis=0) > 0, new, theta)
        if np.allclose(new, theta, rtol=1e-9, atol=1e-15):
            break
        theta = new
    return theta


def prediction(m: Measurement, theta: np.ndarray) -> float:
    """The metric of `m` under the parameter vector `theta` (no linearisation)."""
    era = m.entry.get("software_era", REFERENCE_ERA)
    return predict(m, params_of(theta, m.entry["gpu"], era))


@dataclass(frozen=True)
class Report:
    """A fit and how well it predicts: per measurement the prediction with every point and
    the leave-one-out prediction (refit without that point)."""

    theta: np.ndarray
    predicted: tuple[float, ...]
    left_out: tuple[float, ...]


def fit_and_validate(measurements: Sequence[Measurement]) -> Report:
    """Fit on all measurements, then refit without each in turn and predict it."""
    theta = fit(measurements)
    predicted = tuple(prediction(m, theta) for m in measurements)
    left_out = []
    for i, m in enumerate(measurements):
        rest = [x for j, x in enumerate(measurements) if j != i]
        left_out.append(prediction(m, fit(rest, start=theta)))
    return Report(theta, predicted, tuple(left_out))


def relative_error(predicted: float, measured: float) -> float:
    """(predicted - measured) / measured."""
    return (predicted - measured) / measured


__all__ = ["NAMES", "Report", "fit", "fit_and_validate", "params_of", "prediction"]
