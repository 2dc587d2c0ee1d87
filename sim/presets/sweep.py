"""The ruler: how each serving technique moves output throughput, TTFT, ITL, TPOT and E2EL
(each latency's mean and p99) against its baseline, measured on a workload in that technique's
regime (`sim.presets.ruler_workloads`: long context for fp8_kv, low load for spec_decode, long
prompts among chats for chunked prefill, ...).

Each technique is a pair of runs on the same requests that differ only in that technique's
knob. The sweep, not the page, says which statistic tells each technique's story (`statistic`:
the p99 where it is about stalls and tails, else the mean) and which key each ruler metric
shows (`shown`: speculative decoding's per-token latency is TPOT, because `vllm bench serve`
counts a chunk of several verified tokens as one ITL gap). Times are milliseconds of the
calibrated cost model; throughput is output tokens per second.

`load_curve_workload` is the `--rates` latency-vs-load table's workload (linear cost).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim.api import run_workload
from sim.presets.ruler_workloads import ENGINE, WORKLOADS, RulerWorkload, describe

DEFAULT_SWEEP_SEED = 1
SWEEP_DECIMALS = 3
MS_PER_S = 1000.0

# The metrics every technique is measured on, as `vllm bench serve` defines them (SIM.md,
# Metrics): output throughput, and the mean and p99 of TTFT, ITL, TPOT and E2EL. A ruler may
# show any of METRICS; each latency has a `_p99` twin in the results (throughput is one rate).
METRICS = ("throughput", "ttft", "itl", "tpot", "e2el")
LATENCIES = ("ttft", "itl", "tpot", "e2el")
STATISTICS = ("mean", "p99")
Engine = dict[str, Any]
# A side of a technique: engine keys set on top of the workload's engine, or a function that
# builds the whole engine from it (a new capacity, two pools).
EngineChange = Engine | Callable[[Engine], Engine]


@dataclass(frozen=True)
class Technique:
    """One ruler technique: its workload, the engine changes of its baseline and variant on
    top of the workload's engine (`common` on both), the statistic that tells its story, and
    per-metric substitutions (`per_metric`: metric id -> the metric shown in its place)."""

    id: str
    label: str
    baseline_label: str
    workload: str
    baseline: EngineChange
    variant: EngineChange
    statistic: str = "mean"
    common: dict[str, Any] = field(default_factory=dict)
    per_metric: dict[str, str] = field(default_factory=dict)
    why: str = ""

    def engines(self, base: Engine) -> tuple[Engine, Engine]:
        """(baseline, variant) engines: a whole engine from a callable, else overrides."""
        start = {**copy.deepcopy(base), **copy.deepcopy(self.common)}

        def build(side: EngineChange) -> Engine:
            return side(start) if callable(side) else {**start, **copy.deepcopy(side)}

        return build(self.baseline), build(self.variant)

    def shown(self) -> dict[str, str]:
        """Metric id -> the key of the change the ruler shows for it."""
        out = {}
        for m in METRICS:
            key = self.per_metric.get(m, m)
            out[m] = f"{key}_p99" if self.statistic == "p99" and key in LATENCIES else key
        return out

    def line(self) -> str:
        """One line for the prompt: what is compared, on which workload, with which statistic."""
        subs = "".join(f"; its {m} column shows {k}" for m, k in self.per_metric.items())
        return (f"{self.label}, on '{self.workload}' ({describe(WORKLOADS[self.workload])}); "
                f"the ruler shows its {self.statistic}s{subs}")


def _capacity(**over: Any) -> Callable[[Engine], Engine]:
    """The workload's engine on another machine: its capacity with `over` (tp, kv_dtype)."""
    def engine(start: Engine) -> Engine:
        return {**start, "capacity": {**start["capacity"], **over}}
    return engine


def _copies(n: int, **over: Any) -> Callable[[Engine], Engine]:
    """`n` instances of the workload's engine with capacity `over`, each serving its share."""
    def engine(start: Engine) -> Engine:
        return {**_capacity(**over)(start), "instances": n}
    return engine


def _disaggregated(start: Engine) -> Engine:
    # 400 Gb/s between the two GPUs (50 GB/s), 0.5 ms to start a transfer.
    return {"policy": "disagg", "prefill": copy.deepcopy(start), "decode": copy.deepcopy(start),
            "transfer": {"latency": 0.0005, "bandwidth": 50e9}}


TECHNIQUES: tuple[Technique, ...] = (
    Technique("continuous_batching", "continuous batching vs static batching",
              "static batching", "busy_chat", {"policy": "static"}, {}),
    # the baseline reserves the model's own context (Llama-3-8B: 8,192 tokens) for every
    # request, as a pre-paging server would; it binds where many requests are in flight
    Technique("paged_kv", "paged KV blocks vs reserving the whole 8k context per request",
              "reserving the whole 8k-token context per request", "mixed_slo",
              {"kv_alloc": "reserve_max_model_len", "max_model_len": 8192}, {}),
    # chunking off as vLLM runs it: a waiting prompt's whole prefill joins the decodes in one
    # (long) step, which needs a budget of the whole context (8,192)
    Technique("chunked_prefill", "chunked prefill (512-token budget) vs chunking off",
              "chunking off (a waiting prompt's whole prefill shares one step with the decodes)",
              "long_prompts", {"enable_chunked_prefill": False, "max_num_batched_tokens": 8192},
              {}, statistic="p99",
              common={"max_num_batched_tokens": 512},
              why="its gain is the stalls: the slowest 1% of gaps"),
    Technique("prefix_caching", "prefix caching on vs off", "prefix caching off",
              "shared_prompt", {}, {"enable_prefix_caching": True}),
    Technique("token_budget", "token budget 2048 vs 512", "a 512-token budget", "long_prompts",
              {"max_num_batched_tokens": 512}, {"max_num_batched_tokens": 2048},
              statistic="p99", why="a bigger budget makes fewer but longer stalls"),
    Technique("spec_decode", "speculative decoding, 3 drafts (n-gram) vs none",
              "no speculation (an n-gram guesser, whose guessing costs no time: an upper bound)",
              "low_load", {}, {"num_speculative_tokens": 3},
              per_metric={"itl": "tpot"},
              why="vllm bench serve counts a chunk of verified tokens as one ITL gap, so its "
                  "per-token latency is TPOT"),
    # where the cache binds: more long requests in flight than a bf16 cache holds
    Technique("fp8_kv", "fp8 KV cache vs bf16", "a bf16 KV cache", "long_context_full",
              _capacity(kv_dtype="bf16"), _capacity(kv_dtype="fp8")),
    # against two copies on the same two GPUs, not one GPU: a model that fits one GPU is
    # usually served by copies, so tensor parallelism must pay for its GPUs in the comparison;
    # on a load that keeps both busy (at a fixed arrival rate both keep up and throughput is
    # only what arrives), where the copies' throughput and the split's shorter steps both show
    Technique("tensor_parallel", "2 GPUs in tensor parallel vs 2 copies, one per GPU",
              "two copies of the model, one per GPU", "long_context", _copies(2, tp=1),
              _capacity(tp=2)),
    Technique("disaggregation", "1 prefill + 1 decode GPU vs 2 colocated GPUs",
              "two GPUs each doing both", "mixed_slo", {"instances": 2}, _disaggregated,
              statistic="p99", why="it is a tool for latency targets: the tails"),
)


def _measure(trace: dict[str, Any]) -> dict[str, float]:
    s = trace["summary"]
    out = {"throughput": round(s["output_throughput"] * MS_PER_S, SWEEP_DECIMALS)}
    for m in LATENCIES:
        out[m] = round(s[m]["mean"], SWEEP_DECIMALS)
        out[f"{m}_p99"] = round(s[m]["p99"], SWEEP_DECIMALS)
    out["duration"] = round(s["duration"], SWEEP_DECIMALS)
    if "goodput" in s:
        out["goodput"] = round(s["goodput"] * MS_PER_S, SWEEP_DECIMALS)
        out["slo_attainment"] = round(s["slo_attainment"], SWEEP_DECIMALS)
    return out


def _change(base: float, variant: float) -> float | None:
    """The change in percent; None only when it has no percentage (a zero baseline that moved)."""
    if not base:
        return 0.0 if not variant else None
    return round((variant - base) / base * 100.0, 1)


def _shown_engine(tech: Technique, side: EngineChange, engine: Engine, start: Engine) -> Engine:
    """What a side sets on top of the workload's engine: its overrides as written, or (a
    whole engine) every key that differs from the workload's; a new policy shows all of it."""
    if engine.get("policy") == "disagg":
        return engine
    if not callable(side):
        return {**copy.deepcopy(tech.common), **copy.deepcopy(side)}
    return {k: v for k, v in engine.items() if start.get(k) != v}


def _pair(tech: Technique, workload: RulerWorkload, seed: int, scale: float) -> dict[str, Any]:
    """One technique: its baseline and variant engines on the same requests and cost model."""
    runs: dict[str, dict[str, Any]] = {}
    start = workload.engine
    sides = zip(("baseline", "variant"), (tech.baseline, tech.variant), tech.engines(start),
                strict=True)
    for role, side, engine in sides:
        trace = run_workload(workload.run_json(engine, seed, scale), fast=True)
        runs[role] = {"engine": _shown_engine(tech, side, engine, start), **_measure(trace)}
    keys = (*METRICS, *(f"{m}_p99" for m in LATENCIES))
    return {
        "id": tech.id,
        "label": tech.label,
        "baseline_label": tech.baseline_label,
        "workload": {"id": workload.id, "description": describe(workload)},
        "statistic": tech.statistic,
        "shown": tech.shown(),
        "why": tech.why,
        "baseline": runs["baseline"],
        "variant": runs["variant"],
        "change_pct": {k: _change(runs["baseline"][k], runs["variant"][k]) for k in keys},
    }


def sweep_spec() -> dict[str, Any]:
    """What the sweep runs (every workload and both engines of every technique), as data: the
    content its cached result is keyed by, with the simulator's code."""
    return {
        "seed": DEFAULT_SWEEP_SEED,
        "workloads": {w.id: {**w.facts(), "engine": w.engine} for w in WORKLOADS.values()},
        "techniques": [
            {"id": t.id, "workload": t.workload, "statistic": t.statistic, "shown": t.shown(),
             "engines": list(t.engines(WORKLOADS[t.workload].engine))}
            for t in TECHNIQUES
        ],
    }


def sweep(n_requests: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """Run every technique pair on its own workload; deterministic JSON-ready result.
    `n_requests` scales every workload to about that many requests (a quick look)."""
    seed = DEFAULT_SWEEP_SEED if seed is None else seed
    techniques = []
    for tech in TECHNIQUES:
        workload = WORKLOADS[tech.workload]
        size = sum(s.n for s in workload.streams)
        scale = 1.0 if n_requests is None else n_requests / size
        techniques.append(_pair(tech, workload, seed, scale))
    used = dict.fromkeys(t.workload for t in TECHNIQUES)
    return {
        "workload": {
            "description": (
                "Each technique runs on its own named workload (techniques[].workload), "
                f"{WORKLOADS['busy_chat'].facts()['model']} on "
                f"{WORKLOADS['busy_chat'].facts()['gpu']} GPUs timed by the calibrated cost "
                "model (estimates fitted to published vLLM measurements); the baseline and the "
                "variant differ in one knob."
                + ("" if n_requests is None else f" Scaled to about {n_requests} requests each.")
            ),
            "seed": seed,
            "base_engine": ENGINE,
            "cost": {"kind": "calibrated"},
            "units": {"throughput": "output tokens/s", **dict.fromkeys(LATENCIES, "ms")},
        },
        "workloads": {wid: {**WORKLOADS[wid].facts(), "description": describe(WORKLOADS[wid])}
                      for wid in used},
        "metrics": list(METRICS),
        "techniques": techniques,
    }


# --- the latency-vs-load table (`python -m sim sweep --rates`) -----------------------------

DEFAULT_LOAD_REQUESTS = 200
# The load curve's engine and requests (linear cost, ms): Poisson arrivals, a shared 256-token
# system prompt, long-tailed outputs.
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
# Goodput's SLOs for the load curve (ms): a first token within 1 s, then 25 ms per token.
LOAD_CURVE_SLO = {"ttft": 1000.0, "tpot": 25.0}


def sweep_generator(n_requests: int, seed: int) -> dict[str, Any]:
    """The load curve's generator (its arrival rate is set per rate by `sim.load_curve`)."""
    return {
        "n": n_requests,
        "seed": seed,
        "arrival": {"kind": "poisson", "rate": 0.008},
        "prompt": {"kind": "uniform", "low": 300, "high": 1200},
        "output": {"kind": "long_tail", "median": 128, "sigma": 0.8, "max": 1024},
        "shared_prefix": 256,
    }


def load_curve_workload(n_requests: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """The workload of `python -m sim sweep --rates` (arrival set per rate), with SLOs."""
    n = DEFAULT_LOAD_REQUESTS if n_requests is None else n_requests
    seed = DEFAULT_SWEEP_SEED if seed is None else seed
    return {
        "engine": copy.deepcopy(BASE_ENGINE),
        "cost": {"kind": "linear"},
        "generate": sweep_generator(n, seed),
        "slo": dict(LOAD_CURVE_SLO),
    }
