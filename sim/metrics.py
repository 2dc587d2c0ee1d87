"""Serving metrics with the definitions of `vllm bench serve`.

TTFT = first token - arrival; E2EL = last token - arrival; TPOT = (E2EL - TTFT) /
(outputs - 1), only for requests with more than one output token; ITL = every gap between
consecutive tokens of a request, pooled over all requests. Throughputs and goodput divide by
the duration from the first arrival to the last finish. Percentiles interpolate linearly
(numpy's default, which vllm uses).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.config import SLO
from sim.entities import Request


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of already sorted values, linear interpolation."""
    if not sorted_values:
        return 0.0
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def stats(values: Sequence[float]) -> dict[str, float]:
    """mean, median, p90 and p99 (all 0.0 for no values, as vllm reports)."""
    ordered = sorted(values)
    mean = math.fsum(ordered) / len(ordered) if ordered else 0.0
    return {
        "mean": mean,
        "median": percentile(ordered, 50),
        "p90": percentile(ordered, 90),
        "p99": percentile(ordered, 99),
    }


@dataclass(frozen=True)
class RequestMetrics:
    """One request's latencies (None when it produced no token / never finished)."""

    ttft: float | None
    tpot: float | None
    e2el: float | None
    itls: list[float]


def request_metrics(req: Request) -> RequestMetrics:
    """TTFT, TPOT, E2EL and the inter-token gaps of one request."""
    times = req.token_times
    arrival = req.spec.arrival
    ttft = times[0] - arrival if times else None
    e2el = req.finish_time - arrival if req.finish_time is not None else None
    tpot = None
    if ttft is not None and e2el is not None and len(times) > 1:
        tpot = (e2el - ttft) / (len(times) - 1)
    # One gap per step that emitted (vllm bench serve measures streamed chunks): tokens of a
    # speculative step share its time; without speculation every token has a step of its own.
    itls = [b - a for a, b in zip(times, times[1:], strict=False) if b != a]
    if req.transfer is not None and itls:  # disaggregation: ITL includes no KV transfer
        itls[0] -= req.transfer[1] - req.transfer[0]
    return RequestMetrics(ttft, tpot, e2el, itls)


def meets_slo(m: RequestMetrics, slo: SLO) -> bool:
    """A finished request meets every given objective (TPOT is vacuous for 1-token outputs)."""
    if m.e2el is None or m.ttft is None:
        return False
    checks = [(slo.ttft, m.ttft), (slo.e2el, m.e2el), (slo.tpot, m.tpot)]
    return all(limit is None or value is None or value <= limit for limit, value in checks)


def summarize(
    requests: Sequence[Request],
    slo: SLO | None = None,
    per: Sequence[RequestMetrics] | None = None,
) -> dict[str, Any]:
    """The trace's `summary` block (`per`: each request's metrics, if already computed)."""
    if per is None:
        per = [request_metrics(r) for r in requests]
    done = [r for r in requests if r.finish_time is not None]
    start = min((r.spec.arrival for r in requests), default=0.0)
    end = max((r.finish_time for r in done if r.finish_time is not None), default=start)
    duration = end - start
    outputs = sum(r.outputs for r in requests)

    def rate(count: float) -> float:
        return count / duration if duration > 0 else 0.0

    summary: dict[str, Any] = {
        "duration": duration,
        "output_throughput": rate(outputs),
        "request_throughput": rate(len(done)),
        "ttft": stats([m.ttft for m in per if m.ttft is not None]),
        "tpot": stats([m.tpot for m in per if m.tpot is not None]),
        "itl": stats([gap for m in per for gap in m.itls]),
        "e2el": stats([m.e2el for m in per if m.e2el is not None]),
    }
    if slo is not None:
        good = sum(1 for m in per if meets_slo(m, slo))
        summary["goodput"] = rate(good)
        summary["good_requests"] = good
        summary["slo_attainment"] = good / len(requests) if requests else 0.0
    return summary


def perceived_wait(requests: Sequence[Request], streaming: bool) -> dict[str, Any]:
    """How long a user waits before reading: the first token when the output streams, the
    whole answer (E2EL) when it does not (SIM-FIELD.md 6)."""
    per = [request_metrics(r) for r in requests]
    waits = [m.ttft if streaming else m.e2el for m in per]
    return {
        "streaming": streaming,
        "measure": "ttft" if streaming else "e2el",
        **stats([w for w in waits if w is not None]),
    }


def speculation_summary(requests: Sequence[Request]) -> dict[str, float]:
    """acceptance_rate = accepted / verified drafts; mean_accepted_length = tokens per verify
    step = 1 + accepted / verify steps (vLLM's "mean acceptance length")."""
    verified = sum(r.drafts_verified for r in requests)
    accepted = sum(r.drafts_accepted for r in requests)
    verify_steps = sum(r.verify_steps for r in requests)
    return {
        "drafts_verified": verified,
        "drafts_accepted": accepted,
        "acceptance_rate": accepted / verified if verified else 0.0,
        "mean_accepted_length": 1.0 + accepted / verify_steps if verify_steps else 0.0,
    }
