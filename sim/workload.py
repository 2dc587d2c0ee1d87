"""Parse and validate a workload (JSON data) into a typed `Workload`.

Every problem raises `WorkloadError` with a JSON path such as ``requests[2].prompt_tokens``,
so the CLI can print one line naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from sim.capacity import parse_capacity, resolve_blocks
from sim.config import (
    DEFAULT_BLOCK_SIZE,
    KV_ALLOCATIONS,
    POLICIES,
    PREEMPTION_MODES,
    SLO,
    EngineConfig,
    RequestSpec,
    Workload,
)
from sim.cost.parse import parse_cost
from sim.disagg_parse import check_transfer_units, parse_disagg
from sim.errors import WorkloadError
from sim.generators import generate_requests, parse_generator
from sim.limits import check_num_blocks, check_request_count, check_request_tokens
from sim.validate import check_fields, expect_choice, expect_int, expect_number

TOP_FIELDS = ("engine", "cost", "requests", "generate", "slo", "scenario", "streaming")
REQUEST_FIELDS = ("id", "arrival", "prompt_tokens", "prompt_ids", "max_tokens", "accept", "n")
POOL_ONLY_FIELDS = ("prefill", "decode", "transfer")  # only under policy disagg
ZERO_OK_ENGINE_FIELDS = ("long_prefill_token_threshold", "num_speculative_tokens")
CHOICE_ENGINE_FIELDS = {
    "policy": POLICIES,
    "kv_alloc": KV_ALLOCATIONS,
    "preemption": PREEMPTION_MODES,
}
DEFAULT_MAX_TOKENS = 16


def _engine_value(name: str, value: Any) -> Any:
    path = f"engine.{name}"
    if name == "capacity":
        return parse_capacity(value, path)
    if name in CHOICE_ENGINE_FIELDS:
        return expect_choice(value, path, CHOICE_ENGINE_FIELDS[name])
    if name.startswith("enable_"):
        if not isinstance(value, bool):
            raise WorkloadError(path, "must be true or false")
        return value
    return expect_int(value, path, 0 if name in ZERO_OK_ENGINE_FIELDS else 1)


def _parse_engine(data: Any, path: str = "engine") -> EngineConfig:
    if path == "engine" and isinstance(data, Mapping) and data.get("policy") == "disagg":
        return parse_disagg(data, _parse_engine)
    names = tuple(f.name for f in fields(EngineConfig) if f.name not in POOL_ONLY_FIELDS)
    raw = check_fields(data, names, path)
    values = {name: _engine_value(name, raw[name]) for name in names if name in raw}
    if "capacity" in values:
        if "num_blocks" in raw:
            raise WorkloadError(f"{path}.num_blocks", "give num_blocks or capacity, not both")
        block_size = values.get("block_size", DEFAULT_BLOCK_SIZE)
        values["num_blocks"] = resolve_blocks(values["capacity"], block_size, f"{path}.capacity")
    engine = EngineConfig(**values)
    _check_speculative(engine)
    check_num_blocks(engine.num_blocks, f"{path}.num_blocks")
    if engine.max_num_batched_tokens < engine.max_num_seqs:
        raise WorkloadError(
            f"{path}.max_num_batched_tokens",
            f"{engine.max_num_batched_tokens} is smaller than max_num_seqs {engine.max_num_seqs}",
        )
    if (
        engine.policy == "vllm"
        and not engine.enable_chunked_prefill
        and engine.max_num_batched_tokens < engine.max_model_len
    ):
        raise WorkloadError(
            f"{path}.max_num_batched_tokens",
            f"{engine.max_num_batched_tokens} is smaller than max_model_len "
            f"{engine.max_model_len} with chunked prefill off (vLLM rejects this)",
        )
    if engine.kv_alloc != "paged" and engine.enable_prefix_caching:
        raise WorkloadError(
            f"{path}.kv_alloc", "reserve_max cannot be combined with prefix caching"
        )
    if engine.instances > 1 and engine.policy != "vllm":
        raise WorkloadError(
            f"{path}.instances", f"several instances need policy vllm, not {engine.policy}"
        )
    return engine


def _check_speculative(engine: EngineConfig) -> None:
    """Speculative decoding is modelled for policy vllm with paged blocks only."""
    if engine.num_speculative_tokens == 0:
        return
    if engine.policy != "vllm":
        raise WorkloadError(
            "engine.num_speculative_tokens", f"needs policy vllm (policy is {engine.policy})"
        )
    if engine.kv_alloc != "paged":
        raise WorkloadError(
            "engine.num_speculative_tokens", f"needs kv_alloc paged (it is {engine.kv_alloc})"
        )


def _parse_slo(data: Any) -> SLO:
    raw = check_fields(data, ("ttft", "tpot", "e2el"), "slo")
    return SLO(**{k: expect_number(v, f"slo.{k}", 0) for k, v in raw.items()})


def _parse_request(data: Any, index: int, engine: EngineConfig) -> RequestSpec:
    path = f"requests[{index}]"
    raw = check_fields(data, REQUEST_FIELDS, path)
    rid = raw.get("id", f"R{index}")
    if not isinstance(rid, str) or not rid:
        raise WorkloadError(f"{path}.id", "must be a non-empty string")
    arrival = expect_number(raw.get("arrival", 0.0), f"{path}.arrival", 0)
    max_tokens = expect_int(raw.get("max_tokens", DEFAULT_MAX_TOKENS), f"{path}.max_tokens", 1)
    if ("prompt_tokens" in raw) == ("prompt_ids" in raw):
        raise WorkloadError(path, "give exactly one of prompt_tokens and prompt_ids")
    prompt_ids: tuple[int, ...] | None = None
    if "prompt_tokens" in raw:
        where = f"{path}.prompt_tokens"
        prompt_len = expect_int(raw["prompt_tokens"], where, 0)
        if prompt_len == 0:
            raise WorkloadError(where, "must be >= 1")
    else:
        where = f"{path}.prompt_ids"
        ids = raw["prompt_ids"]
        if not isinstance(ids, list) or not ids:
            raise WorkloadError(where, "must be a non-empty list of integers")
        prompt_ids = tuple(expect_int(t, f"{where}[{i}]", 0) for i, t in enumerate(ids))
        prompt_len = len(prompt_ids)
    check_request_tokens(prompt_len + max_tokens, path)
    if prompt_len > engine.max_model_len:
        raise WorkloadError(
            where, f"{prompt_len} tokens exceed max_model_len {engine.max_model_len}"
        )
    accept = _parse_accept(raw["accept"], f"{path}.accept") if "accept" in raw else None
    if engine.num_speculative_tokens and prompt_len + max_tokens > engine.max_model_len:
        raise WorkloadError(
            path,
            f"prompt {prompt_len} + max_tokens {max_tokens} exceed max_model_len "
            f"{engine.max_model_len} (required with speculative decoding)",
        )
    return RequestSpec(rid, arrival, prompt_len, max_tokens, prompt_ids, accept)


def _fan_out(data: Any, spec: RequestSpec, path: str) -> list[RequestSpec]:
    """Parallel sampling: `n` children `0_ID` .. `(n-1)_ID`, same arrival and prompt (vLLM V1's
    front end does this before the scheduler sees them)."""
    n = expect_int(data.get("n", 1), f"{path}.n", 1) if isinstance(data, Mapping) else 1
    if n == 1:
        return [spec]
    check_request_count(n, f"{path}.n")
    owner = spec.id if spec.prompt_ids is None else None
    return [
        replace(spec, id=f"{i}_{spec.id}", parent=spec.id, prompt_owner=owner) for i in range(n)
    ]


def _parse_accept(value: Any, path: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise WorkloadError(path, "must be a non-empty list of integers >= 0")
    return tuple(expect_int(a, f"{path}[{i}]", 0) for i, a in enumerate(value))


def parse_workload(data: Any) -> Workload:
    """Validate workload JSON data and return the typed `Workload`."""
    raw = check_fields(data, TOP_FIELDS, "")
    engine = _parse_engine(raw.get("engine", {}))
    cost = parse_cost(raw.get("cost", {}), engine.capacity)
    check_transfer_units(engine, cost)
    slo = _parse_slo(raw["slo"]) if "slo" in raw else None
    scenario = raw.get("scenario")
    if scenario is not None and not isinstance(scenario, Mapping):
        raise WorkloadError("scenario", "must be an object")
    if "requests" in raw and "generate" in raw:
        raise WorkloadError("generate", "give either requests or generate, not both")
    if "generate" in raw:
        items: list[Any] = generate_requests(parse_generator(raw["generate"]))
        base = "generate"
    else:
        items = raw.get("requests", [])
        base = "requests"
        if not isinstance(items, list):
            raise WorkloadError("requests", "must be a list")
        check_request_count(len(items), "requests")
    requests: list[RequestSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        try:
            specs = _fan_out(item, _parse_request(item, i, engine), f"requests[{i}]")
        except WorkloadError as err:
            if base == "requests":
                raise
            raise WorkloadError("generate", f"generated request {i}: {err.problem}") from err
        for spec in specs:
            if spec.id in seen:
                raise WorkloadError(f"requests[{i}].id", f"duplicate id {spec.id!r}")
            seen.add(spec.id)
        requests.extend(specs)
        check_request_count(len(requests), "requests")
    streaming = raw.get("streaming")
    if streaming is not None and not isinstance(streaming, bool):
        raise WorkloadError("streaming", "must be true or false")
    return Workload(
        engine, cost, tuple(requests), slo, dict(scenario) if scenario else None, streaming
    )
