"""The latency-vs-load table of `vllm bench serve --request-rate`: one generated workload run
at several Poisson request rates; per rate, throughput, goodput and p50/p99 of TTFT, TPOT, ITL.

Rates are requests per second when the cost model counts milliseconds (linear, roofline,
calibrated) and requests per step with the unit cost. Request lengths do not depend on the rate
(the arrival gaps come from their own seed).
"""

from __future__ import annotations

import copy
from typing import Any

from sim.api import run_workload
from sim.errors import WorkloadError
from sim.limits import DEFAULT_MAX_STEPS

LOAD_CURVE_DECIMALS = 3
MS_PER_S = 1000.0


def _per_time_unit(rate: float, cost_kind: str) -> float:
    return rate if cost_kind == "unit" else rate / MS_PER_S


def _row(rate: float, summary: dict[str, Any], scale: float) -> dict[str, Any]:
    def r(x: float) -> float:
        return round(x, LOAD_CURVE_DECIMALS)

    row: dict[str, Any] = {
        "rate": rate,
        "output_throughput": r(summary["output_throughput"] * scale),
        "request_throughput": r(summary["request_throughput"] * scale),
    }
    if "goodput" in summary:
        row["goodput"] = r(summary["goodput"] * scale)
        row["slo_attainment"] = r(summary["slo_attainment"])
    for metric in ("ttft", "tpot", "itl"):
        row[metric] = {"p50": r(summary[metric]["median"]), "p99": r(summary[metric]["p99"])}
    return row


def load_curve(
    workload: dict[str, Any], rates: list[float], *, max_steps: int = DEFAULT_MAX_STEPS
) -> dict[str, Any]:
    """Run `workload` (which must `generate` its requests) at each Poisson rate."""
    if "generate" not in workload or not isinstance(workload["generate"], dict):
        raise WorkloadError("generate", "a load curve needs a generated workload (generate)")
    if not rates or any(rate <= 0 for rate in rates):
        raise WorkloadError("--rates", "give positive rates, e.g. --rates 2,4,8")
    kind = workload.get("cost", {}).get("kind", "unit")
    scale = 1.0 if kind == "unit" else MS_PER_S
    seed = workload["generate"].get("seed", 0)
    rows = []
    for rate in rates:
        data = copy.deepcopy(workload)
        arrival = {"kind": "poisson", "rate": _per_time_unit(rate, kind), "seed": seed}
        data["generate"]["arrival"] = arrival
        trace = run_workload(data, fast=True, max_steps=max_steps)
        rows.append(_row(rate, trace["summary"], scale))
    unit = "requests/step" if kind == "unit" else "requests/s"
    return {"rate_unit": unit, "slo": workload.get("slo"), "rates": rows}
