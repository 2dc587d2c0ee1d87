"""The ruler: on ONE documented, seeded workload, how each serving technique moves output
throughput, mean TTFT and mean ITL (and their p99) relative to running without it.

Each technique is a pair of runs that differ only in that technique's knob, starting from
`BASE_ENGINE`. Times are milliseconds (the linear cost model, or the calibrated one where a
technique runs on a real model and GPU: fp8_kv, tensor_parallel); throughput is tokens per second.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from sim.api import run_workload

DEFAULT_SWEEP_REQUESTS = 200
DEFAULT_SWEEP_SEED = 1
SWEEP_DECIMALS = 3
MS_PER_S = 1000.0

BASE_ENGINE: dict[str, Any] = {
    "policy": "vllm",
    "max_num_batched_tokens": 512,
    "max_num_seqs": 64,
    "block_size": 16,
    "num_blocks": 1500,
    "max_model_len": 2048,
    "enable_chunked_prefill": True,
    "enable_prefix_caching": False,
    "long_prefill_token_threshold": 0,
}

# (id, label, baseline overrides, variant overrides) on top of BASE_ENGINE.
TECHNIQUES: tuple[tuple[str, str, dict[str, Any], dict[str, Any]], ...] = (
    ("continuous_batching", "continuous batching vs static batching", {"policy": "static"}, {}),
    (
        "paged_kv",
        "paged KV blocks vs reserving max_model_len per request",
        {"kv_alloc": "reserve_max_model_len"},
        {},
    ),
    ("chunked_prefill", "chunked prefill vs prefill-first", {"policy": "prefill_first"}, {}),
    ("prefix_caching", "prefix caching on vs off", {}, {"enable_prefix_caching": True}),
    ("token_budget", "token budget 2048 vs 512", {}, {"max_num_batched_tokens": 2048}),
)


@dataclass(frozen=True)
class FieldTechnique:
    """A SIM-FIELD.md technique: whole engines (not overrides), and optionally its own cost
    model and request fields, the same on both sides so the pair differs in one thing."""

    id: str
    label: str
    baseline: dict[str, Any]
    variant: dict[str, Any]
    cost: dict[str, Any] = field(default_factory=lambda: {"kind": "linear"})
    generator: dict[str, Any] = field(default_factory=dict)


def _with(**over: Any) -> dict[str, Any]:
    return {**copy.deepcopy(BASE_ENGINE), **over}


def _sized(dtype: str = "bf16", tp: int = 1) -> dict[str, Any]:
    """Llama-3-8B on H100s, sized so that bf16 on one GPU holds about BASE_ENGINE's blocks."""
    engine = _with(capacity={**SWEEP_CAPACITY, "kv_dtype": dtype, "tp": tp})
    del engine["num_blocks"]
    return engine


# 24% of one 80 GB H100 for Llama-3-8B: 19.2 GB - 16.06 GB of weights = 1,497 bf16 blocks.
SWEEP_CAPACITY = {"model": "llama-3-8b", "gpu": "h100-sxm", "gpu_memory_utilization": 0.24}
SWEEP_TRANSFER = {"latency": 0.0005, "bandwidth": 25e9}
# Techniques on a real model and GPU are timed by the calibrated cost model (machine from the
# engine's capacity): an estimate fitted to published vLLM measurements (python -m sim calibrate).
CALIBRATED: dict[str, Any] = {"kind": "calibrated"}
# Accepted drafts per verify step for every request (k = 3): about half accepted.
SWEEP_ACCEPT = [2, 0, 3, 1]

FIELD_TECHNIQUES: tuple[FieldTechnique, ...] = (
    FieldTechnique(
        "spec_decode",
        "speculative decoding, 3 drafts (about half accepted) vs none",
        _with(),
        _with(num_speculative_tokens=3),
        generator={"accept": SWEEP_ACCEPT},
    ),
    FieldTechnique(
        "fp8_kv",
        "fp8 KV cache vs bf16 (same GPU memory)",
        _sized(),
        _sized("fp8"),
        cost=dict(CALIBRATED),
    ),
    FieldTechnique(
        "tensor_parallel",
        "2 GPUs in tensor parallel vs 1 (calibrated estimate)",
        _sized(),
        _sized(tp=2),
        cost=dict(CALIBRATED),
    ),
    FieldTechnique(
        "disaggregation",
        "1 prefill + 1 decode GPU vs 2 colocated GPUs",
        _with(instances=2),
        {"policy": "disagg", "prefill": _with(), "decode": _with(), "transfer": SWEEP_TRANSFER},
    ),
)


def sweep_generator(n_requests: int, seed: int) -> dict[str, Any]:
    """The workload generator: Poisson arrivals, shared 256-token system prompt, long tails."""
    return {
        "n": n_requests,
        "seed": seed,
        "arrival": {"kind": "poisson", "rate": 0.008},
        "prompt": {"kind": "uniform", "low": 300, "high": 1200},
        "output": {"kind": "long_tail", "median": 128, "sigma": 0.8, "max": 1024},
        "shared_prefix": 256,
    }


# The metrics every technique is measured on, as `vllm bench serve` defines them (SIM.md,
# Metrics): output throughput, and the mean and p99 of TTFT, ITL, TPOT and E2EL. A ruler may
# show any of METRICS; each has a `_p99` twin in the results.
METRICS = ("throughput", "ttft", "itl", "tpot", "e2el")
LATENCIES = ("ttft", "itl", "tpot", "e2el")


def _measure(trace: dict[str, Any]) -> dict[str, float]:
    s = trace["summary"]
    out = {"throughput": round(s["output_throughput"] * MS_PER_S, SWEEP_DECIMALS)}
    for m in LATENCIES:
        out[m] = round(s[m]["mean"], SWEEP_DECIMALS)
        out[f"{m}_p99"] = round(s[m]["p99"], SWEEP_DECIMALS)
    out["duration"] = round(s["duration"], SWEEP_DECIMALS)
    return out


def _change(base: float, variant: float) -> float | None:
    """The change in percent; None only when it has no percentage (a zero baseline that moved)."""
    if not base:
        return 0.0 if not variant else None
    return round((variant - base) / base * 100.0, 1)


def _pair(
    tid: str,
    label: str,
    engines: tuple[dict[str, Any], dict[str, Any]],
    shown: tuple[dict[str, Any], dict[str, Any]],
    cost: dict[str, Any],
    generator: dict[str, Any],
) -> dict[str, Any]:
    """One technique: the baseline and variant engines on the same requests and cost model."""
    runs: dict[str, dict[str, Any]] = {}
    for role, engine, over in zip(("baseline", "variant"), engines, shown, strict=True):
        workload = {"engine": copy.deepcopy(engine), "cost": cost, "generate": generator}
        runs[role] = {"engine": over, **_measure(run_workload(workload, fast=True))}
    keys = (*METRICS, *(f"{m}_p99" for m in LATENCIES))
    return {
        "id": tid,
        "label": label,
        "baseline": runs["baseline"],
        "variant": runs["variant"],
        "change_pct": {k: _change(runs["baseline"][k], runs["variant"][k]) for k in keys},
    }


def sweep(n_requests: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """Run every technique pair on the sweep workload; deterministic JSON-ready result."""
    n = DEFAULT_SWEEP_REQUESTS if n_requests is None else n_requests
    seed = DEFAULT_SWEEP_SEED if seed is None else seed
    generator = sweep_generator(n, seed)
    cost = {"kind": "linear"}
    techniques: list[dict[str, Any]] = []
    for tid, label, base_over, variant_over in TECHNIQUES:
        engines = (
            {**copy.deepcopy(BASE_ENGINE), **base_over},
            {**copy.deepcopy(BASE_ENGINE), **variant_over},
        )
        shown = (base_over, variant_over)
        techniques.append(_pair(tid, label, engines, shown, cost, generator))
    for tech in FIELD_TECHNIQUES:
        engines = (tech.baseline, tech.variant)
        techniques.append(
            _pair(tech.id, tech.label, engines, engines, tech.cost, {**generator, **tech.generator})
        )
    return {
        "workload": {
            "description": (
                f"{n} requests, Poisson arrivals at 8 requests/s (seed {seed}); prompts uniform "
                "300-1200 tokens sharing a 256-token system prompt; outputs long-tailed (lognormal, "
                "median 128, sigma 0.8, max 1024); linear cost model (ms): 5 + 0.04 per scheduled "
                "token + 0.0001 per context token read. Each technique flips one knob of the base "
                "engine."
            ),
            "field_note": (
                "spec_decode, fp8_kv, tensor_parallel and disaggregation compare whole engines on "
                "the same requests: fp8_kv and tensor_parallel size the KV pool from Llama-3-8B on "
                "H100s at 24% memory (1,497 bf16 blocks on one GPU) and are timed by the "
                "calibrated cost model (estimates fitted to published vLLM measurements), "
                "spec_decode accepts 2, 0, 3, 1 of its 3 drafts in turn."
            ),
            "generate": generator,
            "base_engine": BASE_ENGINE,
            "cost": cost,
            "units": {"throughput": "output tokens/s", **dict.fromkeys(LATENCIES, "ms")},
        },
        "metrics": list(METRICS),
        "techniques": techniques,
    }


# Goodput's SLOs for the load curve (ms): a first token within 1 s, then 25 ms per token.
LOAD_CURVE_SLO = {"ttft": 1000.0, "tpot": 25.0}


def load_curve_workload(n_requests: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """The sweep workload with SLOs, for `python -m sim sweep --rates` (arrival set per rate)."""
    n = DEFAULT_SWEEP_REQUESTS if n_requests is None else n_requests
    seed = DEFAULT_SWEEP_SEED if seed is None else seed
    return {
        "engine": copy.deepcopy(BASE_ENGINE),
        "cost": {"kind": "linear"},
        "generate": sweep_generator(n, seed),
        "slo": dict(LOAD_CURVE_SLO),
    }
