"""The scenario catalogue the page draws: each technique "without" and "with" on one cast.

Preset names are ``<scenario id>/<variant>`` (variants ``without`` and ``with``) plus
``golden-1`` .. ``golden-11``. `run_preset(name)` returns the trace dict (with detail).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.api import run_workload
from sim.config import CostConfig
from sim.cost import StepWork, build_cost_model
from sim.cost.calibrated import machine
from sim.errors import PresetNotFound
from sim.goldens import golden_workloads
from sim.presets.cast import D_ARRIVAL, cast_requests, comic_engine
from sim.presets.field import COMIC_LINEAR, FIELD_CATALOGUE
from sim.presets.field_more import FIELD_MORE_CATALOGUE, FIELD_MORE_FIGURES
from sim.presets.knobs import KNOBS, Knob, apply_knobs

VARIANTS = ("without", "with")


@dataclass(frozen=True)
class Scenario:
    """One page scenario: a technique shown without and with it on the same cast."""

    id: str
    title: str
    description: str
    variants: dict[str, dict[str, Any]]
    knobs: tuple[Knob, ...] = ()  # what a page may set (`sim.presets.knobs.KNOBS`)


def _w(
    engine: dict[str, Any],
    cost: dict[str, Any] | None = None,
    shared: bool = False,
    requests: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "engine": engine,
        "cost": cost or {"kind": "unit"},
        "requests": requests if requests is not None else cast_requests(shared_prefix=shared),
    }


def _arithmetic(batch: int) -> dict[str, Any]:
    reqs = [
        {"id": f"R{i}", "arrival": 0.0, "prompt_tokens": 512, "max_tokens": 17}
        for i in range(batch)
    ]
    engine = {
        "policy": "vllm",
        "max_num_batched_tokens": 16384,
        "max_num_seqs": 64,
        "block_size": 16,
        "num_blocks": 10000,
        "max_model_len": 4096,
    }
    return _w(engine, {"kind": "calibrated", "model": "llama-3-8b", "gpu": "h100-sxm"}, requests=reqs)


LINEAR = {"kind": "linear"}

_CATALOGUE: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = [
    (
        "kv_cache",
        "KV cache",
        "Without a KV cache every step recomputes each request's whole context (a decode costs "
        "its full length); with it a decode computes 1 new token. Budget 64 so everything fits.",
        _w(comic_engine(policy="no_kv_cache", max_num_batched_tokens=64)),
        _w(comic_engine(max_num_batched_tokens=64)),
    ),
    (
        "batching",
        "Continuous batching",
        "Static batching: D arrives while A, B, C form a batch and waits until the LAST of them "
        "finishes; finished B's slot sits idle. Continuous batching (vLLM): D joins the next step.",
        _w(comic_engine(policy="static", max_num_batched_tokens=16)),
        _w(comic_engine(max_num_batched_tokens=16)),
    ),
    (
        "kv_alloc",
        "Paged KV blocks",
        "12 blocks of 4 slots, a context of at most 20 tokens. Reserving up front, as systems "
        "before paging did, gives each request the longest it could be (20 tokens, 5 blocks) "
        "whatever it will write: A and B take 10 blocks, C and D wait with 2 free; paged "
        "allocation takes blocks as tokens arrive, so all four run and fewer slots sit empty.",
        _w(comic_engine(kv_alloc="reserve_max_model_len", max_num_batched_tokens=16,
                        num_blocks=12, max_model_len=20)),
        _w(comic_engine(max_num_batched_tokens=16, num_blocks=12, max_model_len=20)),
    ),
    (
        "preemption",
        "Preemption by recompute",
        "8 blocks of 4 slots. Without preemption, a request that cannot get a block sits the step "
        "out; when all of them are stuck nothing can progress (stalled). vLLM preempts the newest "
        "running request, frees its blocks and later recomputes it.",
        _w(comic_engine(preemption="none", max_num_batched_tokens=16, num_blocks=8)),
        _w(comic_engine(max_num_batched_tokens=16, num_blocks=8)),
    ),
    (
        "chunked_prefill",
        "Chunked prefill",
        "Comic linear cost (ms: 1 a step plus 0.25 a token). Chunking off (vLLM then needs a "
        "budget of the whole context, 64): D's whole 12-token prompt joins A, B, C's decodes in "
        "one step, which takes far longer than a step of decodes, so their next token is late (a "
        "generation stall); chunked prefill (budget 8) feeds D in chunks alongside their decodes, "
        "every step the same short length, and D's first token comes a little later.",
        _w(comic_engine(max_num_batched_tokens=64, enable_chunked_prefill=False), COMIC_LINEAR),
        _w(comic_engine(), COMIC_LINEAR),
    ),
    (
        "prefix_cache",
        "Prefix caching",
        "Budget 32. A..D share an 8-token system prompt (2 blocks). With prefix caching the cached blocks are "
        "reused: D computes only its own 12 tokens instead of 20; outputs are identical.",
        _w(comic_engine(max_num_batched_tokens=32), shared=True),
        _w(comic_engine(max_num_batched_tokens=32, enable_prefix_caching=True), shared=True),
    ),
    (
        "admission",
        "Admission: budget, slots, blocks",
        "The scheduler's three questions each step: running first, then is there budget left, a "
        "free sequence slot and free blocks for a newcomer? Without limits (budget 64, 8 slots) D "
        "starts at once. With budget 8, 3 slots and 6 blocks D first waits for a slot (steps 3-5), "
        "then for blocks (its whole 12-token prompt needs 3, steps 6-7), then is chunked (P7, P5).",
        _w(comic_engine(max_num_batched_tokens=64, max_num_seqs=8)),
        _w(comic_engine(max_num_batched_tokens=8, max_num_seqs=3, num_blocks=6)),
    ),
    (
        "metrics",
        "TTFT and inter-token latency",
        "One cast on the clock (linear cost, ms): static vs continuous batching. Read D's TTFT "
        "(arrival to first token) and the gaps between its tokens (ITL) off the time axis.",
        _w(comic_engine(policy="static", max_num_batched_tokens=16), LINEAR),
        _w(comic_engine(max_num_batched_tokens=16), LINEAR),
    ),
    (
        "arithmetic",
        "Decode is memory-bound",
        "Llama-3-8B in bf16 on one H100 SXM, timed by the calibrated cost model (an estimate "
        "fitted to published vLLM measurements): each decode step reads all 16 GB of weights "
        "once, whether it decodes 1 request or 32, so a batch of 32 barely slows the step and "
        "multiplies tokens/s.",
        _arithmetic(1),
        _arithmetic(32),
    ),
]


def _step_ends(workload: dict[str, Any], arrival: float | None) -> list[float]:
    """The ends of the run's steps, with D arriving at `arrival` (None: D left out)."""
    run = copy.deepcopy(workload)
    run["requests"] = [r for r in run["requests"] if r["id"] != "D" or arrival is not None]
    for r in run["requests"]:
        if r["id"] == "D":
            r["arrival"] = arrival
    return [float(s["end"]) for s in run_workload(run, detail=True)["steps"]]


def _timed_d_arrival(pair: tuple[dict[str, Any], ...]) -> float | None:
    """D's arrival in a timed pair of runs (a cost in ms) so that it joins step 3, as with the
    unit cost (D at t=2, before step 3): just after the later of the two first steps ends, on
    a half millisecond, when that falls inside both runs' second step; None to keep the cast's
    (a unit cost, a run without the cast's D at t=2, or no such moment)."""
    if any(w.get("cost", {}).get("kind", "unit") == "unit" for w in pair):
        return None
    ds = [next((r for r in w.get("requests", []) if r["id"] == "D"), None) for w in pair]
    if any(d is None or d.get("arrival") != D_ARRIVAL for d in ds):
        return None
    first = max(_step_ends(w, None)[0] for w in pair)
    arrival = math.floor(first * 2 + 1) / 2
    for w in pair:
        ends = _step_ends(w, arrival)
        if len(ends) < 2 or not ends[0] < arrival < ends[1]:
            return None
    return arrival


def _build() -> dict[str, Scenario]:
    out: dict[str, Scenario] = {}
    for sid, title, description, without, with_ in _CATALOGUE + FIELD_CATALOGUE + FIELD_MORE_CATALOGUE:
        variants: dict[str, dict[str, Any]] = {}
        arrival = _timed_d_arrival((without, with_))
        for variant, workload in zip(VARIANTS, (without, with_), strict=True):
            workload = copy.deepcopy(workload)
            if arrival is not None:
                for r in workload["requests"]:
                    if r["id"] == "D":
                        r["arrival"] = arrival
            workload["scenario"] = {
                "id": sid,
                "variant": variant,
                "title": title,
                "description": description,
            }
            variants[variant] = workload
        out[sid] = Scenario(sid, title, description, variants, KNOBS.get(sid, ()))
    return out


SCENARIOS: dict[str, Scenario] = _build()
GOLDENS: dict[str, dict[str, Any]] = golden_workloads()


def preset_names() -> list[str]:
    """Every preset name: ``<id>/without``, ``<id>/with`` and ``golden-N``."""
    names = [f"{sid}/{v}" for sid in SCENARIOS for v in VARIANTS]
    return names + list(GOLDENS)


def preset_workload(name: str) -> dict[str, Any]:
    """The workload dict behind a preset name (a fresh copy)."""
    if name in GOLDENS:
        return copy.deepcopy(GOLDENS[name])
    sid, _, variant = name.partition("/")
    if sid in SCENARIOS and variant in VARIANTS:
        return copy.deepcopy(SCENARIOS[sid].variants[variant])
    raise PresetNotFound(name, preset_names())


def _trace_cost_model(trace: dict[str, Any]) -> Any:
    """The cost model that timed `trace` (roofline or calibrated), rebuilt from its echo."""
    cost = {k: v for k, v in trace["cost"].items() if k != "time_unit"}
    return build_cost_model(CostConfig(**cost))


def _fixed_ms(model: Any, work: StepWork) -> float:
    """A step's fixed cost: the calibrated model's per-step and per-sequence part, or the
    roofline's overhead."""
    fixed = getattr(model, "fixed_ms", None)
    return float(fixed(work)) if fixed is not None else float(model.overhead)


def _weights_peak_ms(trace: dict[str, Any]) -> float:
    """Reading the weights once at the GPU's peak memory bandwidth (each of tp GPUs reads its
    share): the textbook lower bound of a decode step, before any efficiency or overhead. The
    calibrated model's own per-unit costs (`sim.cost.calibrated.machine`) have it."""
    cost = trace["cost"]
    return float(machine(cost["model"], cost["gpu"], int(cost.get("tp") or 1)).weights_ms)


def arithmetic_figures(trace: dict[str, Any]) -> dict[str, float]:
    """Decode-step time, its compute and memory parts and decode tokens/s of the arithmetic
    scenario (averaged over the steps after the prefill). The parts come from the same cost
    model that timed the steps (calibrated or roofline), so a drawing need not estimate them."""
    decode = [s for s in trace["steps"][1:] if all(n == 1 for n in s["scheduled"].values())]
    step_ms = sum(s["end"] - s["start"] for s in decode) / len(decode)
    batch = len(decode[0]["scheduled"])
    model = _trace_cost_model(trace)
    # `computed` is recorded after the step: it already includes the step's new tokens, which is
    # the context the engine charged (computed before + scheduled).
    works = [
        StepWork(sum(s["scheduled"].values()), sum(s["computed"][r] for r in s["scheduled"]))
        for s in decode
    ]
    return {
        "batch": batch,
        "decode_step_ms": round(step_ms, 3),
        "decode_weights_peak_ms": round(_weights_peak_ms(trace), 4),
        "decode_compute_ms": round(sum(model.compute_ms(w) for w in works) / len(works), 4),
        "decode_memory_ms": round(sum(model.memory_ms(w) for w in works) / len(works), 4),
        "decode_overhead_ms": round(sum(_fixed_ms(model, w) for w in works) / len(works), 4),
        "decode_tokens_per_s": round(batch / step_ms * 1000.0, 1),
    }


def parallel_figures(trace: dict[str, Any]) -> dict[str, float]:
    """`arithmetic_figures` plus the decode step's all-reduce part and the GPU count, for the
    tensor-parallel scene (the cost model that timed the steps splits each step the same way)."""
    fig = arithmetic_figures(trace)
    decode = [s for s in trace["steps"][1:] if all(n == 1 for n in s["scheduled"].values())]
    model = _trace_cost_model(trace)
    works = [StepWork(sum(s["scheduled"].values()), 0) for s in decode]
    fig["decode_allreduce_ms"] = round(sum(model.allreduce_ms(w) for w in works) / len(works), 4)
    fig["tp"] = model.tp
    return fig


FIGURES = {
    "arithmetic": arithmetic_figures,
    "tensor_parallel": parallel_figures,
    **FIELD_MORE_FIGURES,
}


def run_preset(
    name: str, *, detail: bool = True, knobs: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """Run a preset and return its trace (with `engine`, `scenario` and per-step detail).

    With detail, scenarios listed in `FIGURES` also carry a top-level `figures` dict. `knobs`
    sets the scenario's declared knobs (`sim.presets.knobs`; a bad one is a `KnobError`).
    """
    sid, _, variant = name.partition("/")
    workload = preset_workload(name)
    if knobs:
        workload = apply_knobs(sid, variant, workload, knobs)
    trace = run_workload(workload, detail=detail)
    if detail and sid in FIGURES:
        trace["figures"] = FIGURES[sid](trace)
    return trace
