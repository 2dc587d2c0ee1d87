"""Knobs: the few numbers of a scenario a page may set to an article's own values (D's prompt
length, the block size, the token budget, k draft tokens, the acceptance rate, the batch).

Each scenario declares its knobs in `KNOBS` (one entry per scenario id): what the knob means,
its unit, the range it may take, the variants it changes and where in the workload it goes
(`target`). `apply_knobs` returns the preset's workload with the values set; a value outside its
knob's range, or a knob the scenario does not declare, is a `KnobError` naming both.

Targets: ``engine.FIELD`` (every engine of the workload: both pools of a disaggregated one),
``requests[ID].FIELD`` / ``requests[*].FIELD`` (one request or all; ``prompt_tokens`` also
resizes explicit ``prompt_ids``, keeping the shared prefix), ``requests[*].acceptance`` (each
request accepts that share of its k drafts, spread evenly over its verify steps) and
``requests.count`` (the batch: copies of the first request, ids R0, R1, ...).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.errors import SimError

VARIANTS = ("without", "with")


class KnobError(SimError):
    """A knob the scenario does not declare, or a value outside its range."""


@dataclass(frozen=True)
class Knob:
    """One settable number of a scenario: `low <= value <= high` (a whole number when
    `integer`), applied to the `variants` it names."""

    id: str
    meaning: str
    unit: str
    low: float
    high: float
    target: str
    integer: bool = True
    variants: tuple[str, ...] = VARIANTS

    def problem(self, value: float) -> str | None:
        """Why `value` is not allowed, or None."""
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            return f"knob {self.id!r} must be a number"
        if self.integer and value != int(value):
            return f"knob {self.id!r} must be a whole number of {self.unit}"
        if not self.low <= value <= self.high:
            return f"knob {self.id!r} must be {_num(self.low)}-{_num(self.high)} {self.unit}"
        return None

    def preset_value(self, workload: Mapping[str, Any]) -> float | None:
        """What the preset itself has at the target (None where the target is computed)."""
        head, _, field = self.target.partition(".")
        if head == "engine":
            found = [e.get(field) for e in _engines(workload)]
            return next((float(v) for v in found if isinstance(v, int | float)), None)
        if head == "requests" and field == "count":
            return float(len(workload.get("requests", [])))
        if head.startswith("requests["):
            for request in _requests(workload, head[len("requests[") : -1]):
                if field == "prompt_tokens" and "prompt_ids" in request:
                    return float(len(request["prompt_ids"]))
                if isinstance(request.get(field), int | float):
                    return float(request[field])
        return None


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _engines(workload: Mapping[str, Any]) -> list[dict[str, Any]]:
    engine = workload.get("engine") or {}
    pools = [engine[k] for k in ("prefill", "decode") if isinstance(engine.get(k), dict)]
    return pools or [engine]


def _requests(workload: Mapping[str, Any], rid: str) -> list[dict[str, Any]]:
    return [r for r in workload.get("requests", []) if rid in ("*", r.get("id"))]


def _accept_steps(rate: float, k: int, steps: int = 8) -> list[int]:
    """`steps` verify steps whose accepted drafts add up as evenly as possible to `rate * k`
    per step (e.g. 0.5 of 3 drafts: 1, 2, 1, 2, ...)."""
    return [math.floor((i + 1) * rate * k + 1e-9) - math.floor(i * rate * k + 1e-9)
            for i in range(steps)]


def _set_request(request: dict[str, Any], field: str, value: float) -> None:
    if field == "prompt_tokens" and "prompt_ids" in request:
        ids = list(request["prompt_ids"])
        own = [i for i in ids if i >= 100]  # the cast's own ids follow the shared prefix
        shared = ids[: len(ids) - len(own)]
        start = own[0] if own else 100
        request["prompt_ids"] = (shared + list(range(start, start + int(value))))[: int(value)]
        return
    request[field] = value


def _set(workload: dict[str, Any], target: str, value: float) -> None:
    head, _, field = target.partition(".")
    if head == "engine":
        for engine in _engines(workload):
            engine[field] = value
    elif head == "requests" and field == "count":
        first = workload["requests"][0]
        workload["requests"] = [{**copy.deepcopy(first), "id": f"R{i}"} for i in range(int(value))]
    elif head.startswith("requests[") and field == "acceptance":
        k = int(_engines(workload)[0].get("num_speculative_tokens") or 0)
        for request in _requests(workload, head[len("requests[") : -1]):
            request["accept"] = _accept_steps(value, k) if k else [0]
    elif head.startswith("requests["):
        for request in _requests(workload, head[len("requests[") : -1]):
            _set_request(request, field, value)
    else:
        raise KnobError(f"unknown knob target {target!r}")


def apply_knobs(
    scenario: str,
    variant: str,
    workload: Mapping[str, Any],
    values: Mapping[str, float],
) -> dict[str, Any]:
    """`workload` (a preset's) with the knobs set, recorded in its `scenario.knobs`."""
    declared = {k.id: k for k in KNOBS.get(scenario, ())}
    out = copy.deepcopy(dict(workload))
    # Targets that read another knob's result (acceptance reads k) go last.
    for name in sorted(values, key=lambda n: declared[n].target.endswith("acceptance")
                       if n in declared else False):
        knob = declared.get(name)
        if knob is None:
            known = ", ".join(declared) or "none"
            raise KnobError(f"scenario {scenario!r} has no knob {name!r} (its knobs: {known})")
        problem = knob.problem(values[name])
        if problem is not None:
            raise KnobError(f"scenario {scenario!r}: {problem}")
        if variant in knob.variants:
            value = values[name]
            _set(out, knob.target, int(value) if knob.integer else float(value))
    if values:
        meta = dict(out.get("scenario") or {})
        meta["knobs"] = {name: values[name] for name in sorted(values)}
        out["scenario"] = meta
    return out


def _d_prompt(low: int, high: int) -> Knob:
    return Knob("d_prompt", "D's prompt length", "tokens", low, high, "requests[D].prompt_tokens")


def _block_size(low: int = 2) -> Knob:
    return Knob("block_size", "tokens per KV block", "tokens", low, 8, "engine.block_size")


def _pool(low: int, high: int) -> Knob:
    return Knob("kv_blocks", "KV blocks in the pool (num_blocks)", "blocks", low, high,
                "engine.num_blocks")


def _budget(low: int, high: int, variants: tuple[str, ...] = VARIANTS) -> Knob:
    return Knob(
        "token_budget", "tokens the engine may schedule per step (max_num_batched_tokens)",
        "tokens", low, high, "engine.max_num_batched_tokens", variants=variants,
    )


def _piece() -> Knob:
    # vLLM's long_prefill_token_threshold caps one request's prompt tokens per step; at 1 a prompt
    # is read as decoding writes, one token a step (the cap is off while a request is alone)
    return Knob(
        "prefill_piece", "most prompt tokens one request reads per step "
        "(long_prefill_token_threshold)", "tokens", 1, 40,
        "engine.long_prefill_token_threshold", variants=("with",),
    )


# Every scenario's knobs, by scenario id. Ranges keep the comic readable (a panel shows at most
# 14 steps, 5 lanes and 18 blocks) and each request able to finish alone.
KNOBS: dict[str, tuple[Knob, ...]] = {
    "kv_cache": (_d_prompt(2, 40),),
    "batching": (_d_prompt(2, 24), _budget(4, 32)),
    "kv_alloc": (_d_prompt(2, 14), _block_size(3), _pool(8, 18)),
    "preemption": (_d_prompt(2, 14), _block_size(3)),
    # with chunking off vLLM needs a budget of the whole context: the budget is the fix's knob
    "chunked_prefill": (_d_prompt(2, 40), _budget(4, 32, variants=("with",)), _piece()),
    "prefix_cache": (_d_prompt(9, 40), _block_size()),
    "admission": (_d_prompt(2, 12),),
    "metrics": (_d_prompt(2, 40),),
    "arithmetic": (
        Knob("batch", "requests decoding together in one step", "requests", 2, 64,
             "requests.count", variants=("with",)),
        Knob("prompt", "every request's prompt length", "tokens", 16, 2048,
             "requests[*].prompt_tokens"),
    ),
    "spec_decode": (
        Knob("draft_k", "draft tokens proposed per decode step (k)", "tokens", 1, 5,
             "engine.num_speculative_tokens", variants=("with",)),
        Knob("acceptance", "share of the drafts the target model accepts", "share", 0.0, 1.0,
             "requests[*].acceptance", integer=False),
        _d_prompt(2, 40),
    ),
    "fp8_kv": (_d_prompt(2, 14),),
    "tensor_parallel": (_d_prompt(2, 40),),
    "disaggregation": (_d_prompt(2, 40),),
    "streaming": (_d_prompt(2, 40),),
    "goodput": (_d_prompt(2, 24),),
    "parallel_sampling": (_d_prompt(2, 12),),
    "load_curve": (),  # a generated sweep: its figures come from fixed workloads
}
