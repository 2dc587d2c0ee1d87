"""`python -m sim calibrate`: fit the calibrated model, print predicted against measured for
every published measurement with the median, worst and leave-one-out errors and the two shapes
the model must keep (FP8's crossover, tp's sub-linear speed-up); `--write` stores the fit in
sim/data/calibration/fitted.json (atomically), which is what `kind: calibrated` runs on.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sim.cost.calibration_set import Measurement, load_set
from sim.cost.data import CALIBRATION_DIR, calibration_table
from sim.cost.fit import AT, ERAS, GPUS, NAMES, REFERENCE_ERA, Report, fit_and_validate, row

FITTED_PATH = CALIBRATION_DIR / "fitted.json"
TP_SERIES = tuple(f"lambda-h100-llama3-8b-tp{n}" for n in (1, 2, 4, 8))
FP8_LINES = ("fp8-blog-bf16-itl-intercept", "fp8-blog-bf16-itl-slope",
             "fp8-blog-fp8-itl-intercept", "fp8-blog-fp8-itl-slope")


def fitted_document(report: Report, measurements: Sequence[Measurement]) -> dict[str, Any]:
    """The fitted.json content: the parameters in the units the cost model reads, which
    measurements constrain each, and the errors of the fit."""
    theta = report.theta
    columns = np.array([row(m, theta)[0] for m in measurements])
    used = {name: [m.id for m, c in zip(measurements, columns[:, i], strict=True) if c != 0]
            for i, name in enumerate(NAMES)}
    per_byte = float(theta[AT["link_ms_per_byte"]])
    summary = error_summary(report, measurements)
    return {
        "about": "Written by `python -m sim calibrate --write` (sim/cost/fit.py) from "
        "sim/data/calibration/measurements.json; do not edit by hand. Fractions are of the GPU "
        "table's peak; times are per step on each GPU.",
        "reference_era": REFERENCE_ERA,
        "step_overhead_ms": {g: float(theta[AT[g]]) for g in GPUS},
        "era_extra_step_ms": {e: float(theta[AT[e]]) for e in ERAS},
        "compute_fraction": 1.0 / float(theta[AT["compute_scale"]]),
        "weight_bandwidth_fraction": 1.0 / float(theta[AT["weight_scale"]]),
        "kv_bandwidth_fraction": 1.0 / float(theta[AT["kv_scale"]]),
        "fp8_kv_read_factor": float(theta[AT["fp8_kv_scale"]] / theta[AT["kv_scale"]]),
        "fp8_step_ms": float(theta[AT["fp8_step_ms"]]),
        "sequence_ms": float(theta[AT["sequence_ms"]]),
        "nvlink": {"latency": float(theta[AT["link_latency_ms"]]) / 1000.0,
                   "bandwidth": 1000.0 / per_byte if per_byte > 0 else None},
        "tp_sync_ms": float(theta[AT["tp_sync_ms"]]),
        "fitted_to": used,
        "errors": summary,
    }


def error_summary(report: Report, measurements: Sequence[Measurement]) -> dict[str, float]:
    """Median and worst |relative error|, with every point and left out."""
    fit_err = [abs(p - m.value) / m.value for p, m in zip(report.predicted, measurements, strict=True)]
    loo_err = [abs(p - m.value) / m.value for p, m in zip(report.left_out, measurements, strict=True)]
    return {
        "median_abs_error": round(float(np.median(fit_err)), 4),
        "worst_abs_error": round(float(max(fit_err)), 4),
        "leave_one_out_median_abs_error": round(float(np.median(loo_err)), 4),
        "leave_one_out_worst_abs_error": round(float(max(loo_err)), 4),
    }


def write_fitted(document: dict[str, Any], path: Path = FITTED_PATH) -> None:
    """Replace fitted.json in one step (a temporary file renamed over it)."""
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fitted-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def is_current(document: dict[str, Any], stored: dict[str, Any], rel: float = 1e-6) -> bool:
    """Whether the stored fit equals a fresh one (every number within `rel`)."""

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, float | int) and isinstance(b, float | int):
            return bool(np.isclose(a, b, rtol=rel, atol=1e-12))
        return bool(a == b)

    return same(document, stored)


def shapes(report: Report, measurements: Sequence[Measurement]) -> list[str]:
    """The FP8 break-even and the tp speed-ups, predicted and measured."""
    by_id = {m.id: (m.value, p) for m, p in zip(measurements, report.predicted, strict=True)}
    lines = []
    if all(k in by_id for k in FP8_LINES):
        (bi, pbi), (bs, pbs), (fi, pfi), (fs, pfs) = (by_id[k] for k in FP8_LINES)
        lines.append(
            f"FP8 KV break-even context (concurrency 1): predicted {(pfi - pbi) / (pbs - pfs):,.0f}"
            f" tokens, measured fit {(fi - bi) / (bs - fs):,.0f} (blog's Table 3: 7,010); "
            f"below it FP8 is slower"
        )
    if all(k in by_id for k in TP_SERIES):
        base_m, base_p = by_id[TP_SERIES[0]]
        parts = [f"tp{k[-1]} {base_p / by_id[k][1]:.2f}x (measured {base_m / by_id[k][0]:.2f}x)"
                 for k in TP_SERIES[1:]]
        lines.append("Llama-3-8B on H100, speed-up over tp1: " + ", ".join(parts))
    return lines


def render(report: Report, measurements: Sequence[Measurement], current: bool) -> str:
    """The human-readable calibration table."""
    out = [f"{'measurement':42} {'metric':24} {'measured':>11} {'predicted':>11} {'error':>7} "
           f"{'left out':>8}"]
    for m, p, q in zip(measurements, report.predicted, report.left_out, strict=True):
        out.append(f"{m.id:42} {m.metric:24} {m.value:11.4g} {p:11.4g} "
                   f"{100 * (p - m.value) / m.value:6.1f}% {100 * (q - m.value) / m.value:7.1f}%")
    s = error_summary(report, measurements)
    worst = max(p / m.value if p >= m.value else m.value / p
                for m, p in zip(measurements, report.predicted, strict=True))
    out += [
        "",
        f"{len(measurements)} measurements: median |error| {100 * s['median_abs_error']:.1f}%, "
        f"worst {100 * s['worst_abs_error']:.1f}% ({worst:.2f}x); leave-one-out median "
        f"{100 * s['leave_one_out_median_abs_error']:.1f}%, worst "
        f"{100 * s['leave_one_out_worst_abs_error']:.1f}%",
        *shapes(report, measurements),
        "fitted.json matches this fit" if current
        else "fitted.json differs from this fit: run `python -m sim calibrate --write`",
    ]
    return "\n".join(out)


def calibrate(write: bool = False) -> str:
    """Fit, validate and report; with `write`, store the fit first."""
    measurements = load_set()
    report = fit_and_validate(measurements)
    document = fitted_document(report, measurements)
    if write:
        write_fitted(document)
        calibration_table.cache_clear()
    stored = json.loads(FITTED_PATH.read_text(encoding="utf-8")) if FITTED_PATH.exists() else {}
    return render(report, measurements, is_current(document, stored))
