"""Turn a `SimResult` into the trace JSON of SIM.md (steps, requests, summary)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

from sim.capacity import capacity_terms
from sim.config import SLO, Workload
from sim.engine import SimResult
from sim.entities import Request
from sim.metrics import (
    RequestMetrics,
    meets_slo,
    perceived_wait,
    request_metrics,
    speculation_summary,
    summarize,
)
from sim.trace_record import t


def _round(value: float | None) -> float | None:
    return None if value is None else t(value)


def _rounded(obj: Any) -> Any:
    if isinstance(obj, float):
        return t(obj)
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    return obj


def _request_entry(req: Request, m: RequestMetrics, slo: SLO | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "arrival": req.spec.arrival,
        "first_token": _round(req.token_times[0]) if req.token_times else None,
        "finish": _round(req.finish_time),
        "output_tokens": req.outputs,
        "token_times": list(req.token_times),  # already rounded by the engine
        "ttft": _round(m.ttft),
        "tpot": _round(m.tpot),
        "e2el": _round(m.e2el),
        "preemptions": req.preemptions,
        "prefix_hit_tokens": req.prefix_hit_tokens,
    }
    if slo is not None:
        entry["meets_slo"] = meets_slo(m, slo)
    if req.transfer is not None:
        entry["transfer"] = list(req.transfer)
    return entry


def _parents(requests: list[Request]) -> dict[str, Any]:
    """Parallel sampling: each parent's children, earliest first token and latest finish."""
    groups: dict[str, list[Request]] = {}
    for req in requests:
        if req.spec.parent is not None:
            groups.setdefault(req.spec.parent, []).append(req)
    out: dict[str, Any] = {}
    for parent, children in groups.items():
        firsts = [c.token_times[0] for c in children if c.token_times]
        finishes = [c.finish_time for c in children if c.finish_time is not None]
        out[parent] = {
            "n": len(children),
            "children": [c.id for c in children],
            "first_token": min(firsts) if firsts else None,
            "finish": max(finishes) if len(finishes) == len(children) else None,
        }
    return out


def _summary(result: SimResult, workload: Workload, per: list[RequestMetrics]) -> dict[str, Any]:
    summary = summarize(result.requests, workload.slo, per)
    if result.config.num_speculative_tokens:
        summary.update(speculation_summary(result.requests))
    if result.config.capacity is not None:
        summary["capacity"] = capacity_terms(result.config.capacity, result.config.block_size)
    if workload.streaming is not None:
        summary["perceived_wait"] = perceived_wait(result.requests, workload.streaming)
    return _rounded(summary)


def build_trace(result: SimResult, workload: Workload, *, detail: bool = False) -> dict[str, Any]:
    """The trace dict. With `detail`, also `engine` (resolved config), `cost` and `scenario`.

    Fields of SIM-FIELD.md appear only when the workload uses them (an old workload's trace is
    byte-identical): `parents` with parallel sampling, `meets_slo` with an `slo`.
    """
    trace: dict[str, Any] = {}
    if detail:
        trace["engine"] = result.config.to_dict()
        trace["cost"] = workload.cost.to_dict()
        trace["scenario"] = dict(workload.scenario or {})
    trace["steps"] = result.steps
    per = [request_metrics(req) for req in result.requests]
    trace["requests"] = {
        req.id: _request_entry(req, m, workload.slo)
        for req, m in zip(result.requests, per, strict=True)
    }
    parents = _parents(result.requests)
    if parents:
        trace["parents"] = parents
    trace["summary"] = _summary(result, workload, per)
    if result.stalled:
        trace["stalled"] = True
    return trace


def encode(trace: dict[str, Any], *, indent: bool = False) -> bytes:
    """The trace as UTF-8 JSON bytes: compact, or indented by two spaces for humans.

    orjson writes the 1000-request bench trace (11 MB compact) in ~0.015 s where the stdlib
    takes ~0.1 s compact and ~0.4 s indented (its pure-Python path), most of a `sim run`.
    Both decode to the same data as `json.dumps`; only float spelling may differ (1e-05 vs
    0.00001). Every number in a trace is finite (workloads are validated), and keys are str.
    """
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(trace, option=option)


def dumps(trace: dict[str, Any], *, indent: bool = False) -> str:
    """`encode` as text (stable key order as built, no trailing spaces)."""
    return encode(trace, indent=indent).decode("utf-8")


def trace_hash(trace: dict[str, Any]) -> str:
    """sha256 of the compact canonical JSON, to compare two runs."""
    text = json.dumps(trace, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
