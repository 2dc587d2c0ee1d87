"""Seeded workload generators: arrivals (all at once or Poisson) and length distributions.

A generator spec is JSON data such as::

    {"n": 200, "seed": 7, "arrival": {"kind": "poisson", "rate": 0.05},
     "prompt": {"kind": "uniform", "low": 100, "high": 1000},
     "output": {"kind": "long_tail", "median": 128, "sigma": 1.0, "max": 1024},
     "shared_prefix": 0}

and yields request dicts in the explicit workload format, so generated and hand-written
workloads go through the same validation. Same spec, same requests: `random.Random(seed)`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from sim.errors import WorkloadError
from sim.limits import MAX_TOKENS_PER_REQUEST, check_request_count, check_request_tokens

GENERATOR_FIELDS = ("n", "seed", "arrival", "prompt", "output", "shared_prefix", "accept")
LENGTH_FIELDS = {
    "fixed": ("kind", "value"),
    "uniform": ("kind", "low", "high"),
    "long_tail": ("kind", "median", "sigma", "max"),
}
ARRIVAL_FIELDS = {
    "all_at_once": ("kind", "at"),
    "poisson": ("kind", "rate", "start", "seed"),
    # `size` requests arrive together every `every` time units from `start`.
    "burst": ("kind", "size", "every", "start"),
}
OPTIONAL_DIST_FIELDS = ("at", "start", "seed")
# Token ids of generated prompts: request i uses ids UNIQUE_ID_BASE * (i + 1) + position,
# so no two generated prompts share a block unless `shared_prefix` says so.
UNIQUE_ID_BASE = 1_000_000


@dataclass(frozen=True)
class GeneratorSpec:
    """A validated generator description (see the module docstring)."""

    n: int
    seed: int
    arrival: Mapping[str, Any]
    prompt: Mapping[str, Any]
    output: Mapping[str, Any]
    shared_prefix: int = 0
    accept: tuple[Any, ...] | None = None  # every request's `accept` (checked per request)


def _number(value: Any, path: str, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WorkloadError(path, "must be a number")
    if value < 0 or (positive and value == 0):
        raise WorkloadError(path, "must be > 0" if positive else "must not be negative")
    if isinstance(value, int) and value > MAX_TOKENS_PER_REQUEST:
        check_request_tokens(value, path)  # also keeps float() below from overflowing
    return float(value)


def _check_length_dist(dist: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """A length distribution's range is sane and within the per-request token bound."""
    if dist["kind"] == "uniform" and dist["low"] > dist["high"]:
        raise WorkloadError(
            f"{path}.low", f"{dist['low']} is greater than high {dist['high']} (swap them)"
        )
    top = {"fixed": "value", "uniform": "high", "long_tail": "max"}[dist["kind"]]
    check_request_tokens(int(dist[top]), f"{path}.{top}")
    return dist


def _dist(data: Any, path: str, table: dict[str, tuple[str, ...]]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping) or data.get("kind") not in table:
        raise WorkloadError(f"{path}.kind", f"must be one of {', '.join(table)}")
    for key, value in data.items():
        if key not in table[data["kind"]]:
            raise WorkloadError(f"{path}.{key}", "unknown field")
        if key != "kind":
            positive = key in ("rate", "median", "sigma", "size", "every")
            _number(value, f"{path}.{key}", positive=positive)
    if data["kind"] == "burst" and not isinstance(data.get("size"), int):
        raise WorkloadError(f"{path}.size", "must be an integer")
    for key in table[data["kind"]]:
        if key not in data and key not in OPTIONAL_DIST_FIELDS:
            raise WorkloadError(f"{path}.{key}", "is required")
    return data


def parse_generator(data: Any) -> GeneratorSpec:
    """Validate a generator spec (paths are rooted at ``generate``)."""
    if not isinstance(data, Mapping):
        raise WorkloadError("generate", "must be an object")
    for key in data:
        if key not in GENERATOR_FIELDS:
            raise WorkloadError(f"generate.{key}", "unknown field")
    n = data.get("n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise WorkloadError("generate.n", "must be a non-negative integer")
    check_request_count(n, "generate.n")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise WorkloadError("generate.seed", "must be an integer")
    shared = data.get("shared_prefix", 0)
    if isinstance(shared, bool) or not isinstance(shared, int) or shared < 0:
        raise WorkloadError("generate.shared_prefix", "must be a non-negative integer")
    check_request_tokens(shared, "generate.shared_prefix")
    return GeneratorSpec(
        n=n,
        seed=seed,
        arrival=_dist(
            data.get("arrival", {"kind": "all_at_once"}), "generate.arrival", ARRIVAL_FIELDS
        ),
        prompt=_check_length_dist(
            _dist(data.get("prompt"), "generate.prompt", LENGTH_FIELDS), "generate.prompt"
        ),
        output=_check_length_dist(
            _dist(data.get("output"), "generate.output", LENGTH_FIELDS), "generate.output"
        ),
        shared_prefix=shared,
        accept=tuple(data["accept"])
        if isinstance(data.get("accept"), list)
        else data.get("accept"),
    )


def _draw_length(rng: random.Random, dist: Mapping[str, Any]) -> int:
    kind = dist["kind"]
    if kind == "fixed":
        return max(1, int(dist["value"]))
    if kind == "uniform":
        return max(1, rng.randint(int(dist["low"]), int(dist["high"])))
    value = rng.lognormvariate(0.0, float(dist["sigma"])) * float(dist["median"])
    return max(1, min(int(dist["max"]), round(value)))


def _arrival_clock(spec: GeneratorSpec, rng: random.Random) -> Iterator[float]:
    """Arrival times: all at once, Poisson (exponential gaps; its own `seed` if given, so
    lengths do not depend on the rate), or bursts of `size` every `every`."""
    arrival = spec.arrival
    clock = float(arrival.get("start", arrival.get("at", 0.0)))
    if arrival["kind"] == "burst":
        size, every = int(arrival["size"]), float(arrival["every"])
        for i in itertools.count():
            yield clock + (i // size) * every
    gaps = random.Random(arrival["seed"]) if "seed" in arrival else rng
    while True:
        if arrival["kind"] == "poisson":
            clock += gaps.expovariate(float(arrival["rate"]))
        yield clock


def generate_requests(spec: GeneratorSpec) -> list[dict[str, Any]]:
    """Draw `spec.n` requests (dicts in the explicit workload format), deterministically."""
    rng = random.Random(spec.seed)
    clocks = _arrival_clock(spec, rng)
    out: list[dict[str, Any]] = []
    for i in range(spec.n):
        clock = next(clocks)
        prompt_len = _draw_length(rng, spec.prompt)
        max_tokens = _draw_length(rng, spec.output)
        request: dict[str, Any] = {
            "id": f"R{i}",
            "arrival": round(clock, 6),
            "max_tokens": max_tokens,
        }
        if spec.accept is not None:
            request["accept"] = list(spec.accept) if isinstance(spec.accept, tuple) else spec.accept
        if spec.shared_prefix:
            own = max(1, prompt_len - spec.shared_prefix)
            base = UNIQUE_ID_BASE * (i + 1)
            request["prompt_ids"] = list(range(1, spec.shared_prefix + 1)) + [
                base + j for j in range(own)
            ]
        else:
            request["prompt_tokens"] = prompt_len
        out.append(request)
    return out
