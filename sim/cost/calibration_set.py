"""The calibration set as simulator runs: each published measurement becomes the workload it
measured, its schedule recorded once, and its metric computed from any step times.

Every run's requests arrive at t = 0, so the vLLM schedule does not depend on how long steps
take: the steps (what each scheduled, which tokens each emitted) are recorded once with the
unit cost, and a metric is then a function of the vector of step times. `predict` computes it
exactly as `sim.metrics` would from a run under those step times (a test checks this against
the real simulator); `sim.cost.fit` fits the parameters through the same functions.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from sim.api import run_workload
from sim.cost.calibrated import Machine, Params, machine, step_ms, step_terms
from sim.cost.collective import allreduce_seconds
from sim.cost.data import calibration_table

MS_PER_S = 1000.0
US_PER_S = 1e6
METRICS = (
    "duration_s",
    "batch_latency_ms",
    "output_throughput",
    "median_itl_ms",
    "median_ttft_admitted_ms",
    "itl_slope_ms_per_token",
    "itl_intercept_ms",
    "allreduce_us",
)


@dataclass(frozen=True)
class RecordedRun:
    """One run's schedule: per step its tokens, context and attention pairs; per request the
    steps that emitted its tokens and the step that first scheduled it (0-based)."""

    tokens: np.ndarray
    context: np.ndarray
    pairs: np.ndarray
    sequences: np.ndarray
    token_steps: tuple[np.ndarray, ...]
    admitted: np.ndarray
    output_tokens: int


@dataclass(frozen=True)
class Measurement:
    """A published number and the runs that reproduce its setup."""

    id: str
    metric: str
    value: float
    entry: dict[str, Any]
    machine: Machine | None
    runs: tuple[RecordedRun, ...]
    sweep: tuple[int, ...] = ()


def _requests(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Request dicts from explicit lengths, or a seeded uniform spread around a mean."""
    if "input_lens" in spec:
        pairs = list(zip(spec["input_lens"], spec["output_lens"], strict=True))
    else:
        n, ratio = int(spec["count"]), float(spec.get("range_ratio", 0.0))
        rng = np.random.default_rng(int(spec.get("seed", 0)))

        def spread(mean: int) -> list[int]:
            low, high = int(mean * (1 - ratio)), int(mean * (1 + ratio))
            return [int(x) for x in rng.integers(low, high + 1, size=n)]

        pairs = list(zip(spread(spec["input"]), spread(spec["output"]), strict=True))
    return [
        {"id": f"r{i}", "arrival": 0.0, "prompt_tokens": int(p), "max_tokens": max(1, int(o))}
        for i, (p, o) in enumerate(pairs)
    ]


def workload(entry: dict[str, Any], requests: list[dict[str, Any]], cost: dict[str, Any]) -> Any:
    """The simulator workload of a measurement's setup under `cost`."""
    return {"engine": copy.deepcopy(entry["engine"]), "cost": cost, "requests": requests}


def calibrated_cost(entry: dict[str, Any]) -> dict[str, Any]:
    """The cost object that runs a measurement's setup on the calibrated model."""
    cost: dict[str, Any] = {"kind": "calibrated", "model": entry["model"], "gpu": entry["gpu"]}
    if entry.get("tp", 1) != 1:
        cost["tp"] = entry["tp"]
    if entry.get("kv_dtype") is not None:
        cost["kv_dtype"] = entry["kv_dtype"]
    return cost


def request_sets(entry: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """One request list per run (a sweep runs one request per input length)."""
    if "sweep" in entry:
        out = entry["sweep"]["output"]
        return [_requests({"input_lens": [n], "output_lens": [out]}) for n in entry["sweep"]["input_lens"]]
    return [_requests(entry["requests"])]


def _record(entry: dict[str, Any], requests: list[dict[str, Any]]) -> RecordedRun:
    """Record one run (measurements that share a setup, say a metric each, share the run)."""
    return _record_setup(json.dumps(workload(entry, requests, {"kind": "unit"}), sort_keys=True))


@cache
def _record_setup(text: str) -> RecordedRun:
    unit_workload = json.loads(text)
    trace = run_workload(unit_workload)
    requests = unit_workload["requests"]
    tokens, context, pairs, seqs = [], [], [], []
    first: dict[str, int] = {}
    computed: dict[str, int] = {}  # KV written so far: nothing is preempted (checked below)
    for index, step in enumerate(trace["steps"]):
        if step["preempted"]:
            raise ValueError("a calibration run preempts; give its engine more blocks")
        sched = step["scheduled"]
        tokens.append(sum(sched.values()))
        seqs.append(len(sched))
        context.append(sum(computed.get(r, 0) + n for r, n in sched.items()))
        pairs.append(sum(n * computed.get(r, 0) + n * (n + 1) // 2 for r, n in sched.items()))
        for r, n in sched.items():
            first.setdefault(r, index)
            computed[r] = computed.get(r, 0) + n
    ids = [r["id"] for r in requests]
    # With the unit cost step k (1-based) ends at time k: token times are step numbers.
    steps = tuple(
        np.rint(np.asarray(trace["requests"][r]["token_times"], dtype=float)).astype(int) - 1
        for r in ids
    )
    return RecordedRun(
        tokens=np.asarray(tokens, dtype=float),
        context=np.asarray(context, dtype=float),
        pairs=np.asarray(pairs, dtype=float),
        sequences=np.asarray(seqs, dtype=float),
        token_steps=steps,
        admitted=np.asarray([first[r] for r in ids], dtype=int),
        output_tokens=sum(len(s) for s in steps),
    )


@cache
def load_set() -> tuple[Measurement, ...]:
    """Every measurement of `sim/data/calibration/measurements.json`, its runs recorded."""
    out: list[Measurement] = []
    for entry in calibration_table("measurements")["measurements"]:
        if entry["metric"] == "allreduce_us":
            out.append(Measurement(entry["id"], entry["metric"], float(entry["value"]), entry, None, ()))
            continue
        runs = tuple(_record(entry, reqs) for reqs in request_sets(entry))
        sweep = tuple(entry["sweep"]["input_lens"]) if "sweep" in entry else ()
        mach = machine(entry["model"], entry["gpu"], entry.get("tp", 1), entry.get("kv_dtype"))
        out.append(Measurement(entry["id"], entry["metric"], float(entry["value"]), entry, mach, runs, sweep))
    return tuple(out)


def terms_of(mach: Machine, run: RecordedRun) -> dict[str, np.ndarray]:
    """`step_terms` of every step of a recorded run."""
    return step_terms(mach, run.tokens, run.context, run.pairs, run.sequences)


def step_times(m: Measurement, run: RecordedRun, p: Params) -> np.ndarray:
    """The step times (ms) of one recorded run under `p`."""
    assert m.machine is not None
    return np.asarray(step_ms(m.machine, terms_of(m.machine, run), p))


def selection(m: Measurement, times: list[np.ndarray]) -> list[np.ndarray]:
    """Per run, the weights w over steps with metric = sum(w * step times) at these times (the
    median picks its element here; throughput is read off the duration it divides by)."""
    weights = []
    for run, t in zip(m.runs, times, strict=True):
        ends = np.cumsum(t)
        w = np.zeros(len(t))
        if m.metric in ("duration_s", "batch_latency_ms", "output_throughput"):
            w[:] = 1.0
        elif m.metric == "median_itl_ms":
            a = np.concatenate([s[:-1] for s in run.token_steps if len(s) > 1])
            b = np.concatenate([s[1:] for s in run.token_steps if len(s) > 1])
            k = _median_index(ends[b] - ends[a])
            w[a[k] + 1 : b[k] + 1] = 1.0
        elif m.metric == "median_ttft_admitted_ms":
            firsts = np.asarray([s[0] for s in run.token_steps])
            starts = np.where(run.admitted > 0, ends[run.admitted - 1], 0.0)
            k = _median_index(ends[firsts] - starts)
            w[run.admitted[k] : firsts[k] + 1] = 1.0
        else:  # itl line: the mean decode gap of the run's one request
            s = run.token_steps[0]
            w[s[0] + 1 : s[-1] + 1] = 1.0 / (len(s) - 1)
        weights.append(w)
    if m.sweep:
        x = np.asarray(m.sweep, dtype=float)
        slope_w = (x - x.mean()) / ((x - x.mean()) ** 2).sum()
        line_w = slope_w if m.metric == "itl_slope_ms_per_token" else 1.0 / len(x) - x.mean() * slope_w
        weights = [c * w for c, w in zip(line_w, weights, strict=True)]
    return weights


def _median_index(values: np.ndarray) -> int:
    """The index of the (lower) median element."""
    order = np.argsort(values, kind="stable")
    return int(order[(len(values) - 1) // 2])


def from_linear(m: Measurement, linear: float) -> float:
    """The metric from its linear form (ms of selected steps) in the metric's own unit."""
    if m.metric == "duration_s":
        return linear / MS_PER_S
    if m.metric == "output_throughput":
        return m.runs[0].output_tokens / (linear / MS_PER_S)
    return linear


def predict(m: Measurement, p: Params) -> float:
    """The metric of `m` under parameters `p`."""
    if m.metric == "allreduce_us":
        return allreduce_seconds(float(m.entry["bytes"]), int(m.entry["tp"]), p.link) * US_PER_S
    times = [step_times(m, run, p) for run in m.runs]
    if m.metric == "median_itl_ms":
        return _median_of(m, times, gaps=True)
    if m.metric == "median_ttft_admitted_ms":
        return _median_of(m, times, gaps=False)
    weights = selection(m, times)
    return from_linear(m, float(sum(float(w @ t) for w, t in zip(weights, times, strict=True))))


def _median_of(m: Measurement, times: list[np.ndarray], gaps: bool) -> float:
    """np.median of the pooled gaps (or first-token waits), as `sim.metrics` reports it."""
    run, ends = m.runs[0], np.cumsum(times[0])
    if gaps:
        values = np.concatenate([np.diff(ends[s]) for s in run.token_steps if len(s) > 1])
    else:
        firsts = np.asarray([s[0] for s in run.token_steps])
        values = ends[firsts] - np.where(run.admitted > 0, ends[run.admitted - 1], 0.0)
    return float(np.median(values))
