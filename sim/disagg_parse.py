"""Parse policy `disagg` (SIM-FIELD.md 4): two pools, each a full engine config with
`instances`, and the KV `transfer` between them. Errors name the JSON path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.config import CostConfig, EngineConfig, TransferConfig
from sim.errors import WorkloadError
from sim.validate import check_fields, expect_number

DISAGG_FIELDS = ("policy", "prefill", "decode", "transfer")
TRANSFER_FIELDS = ("latency", "bandwidth", "steps")


def parse_transfer(data: Any, path: str = "engine.transfer") -> TransferConfig:
    """latency (s) and bandwidth (bytes/s), or steps (unit cost)."""
    raw = check_fields(data, TRANSFER_FIELDS, path)
    values = {k: expect_number(v, f"{path}.{k}", 0) for k, v in raw.items()}
    return TransferConfig(**values)


def parse_disagg(data: Any, parse_pool: Callable[[Any, str], EngineConfig]) -> EngineConfig:
    """The top-level engine of policy disagg; `parse_pool` parses one pool's engine config."""
    raw = check_fields(data, DISAGG_FIELDS, "engine")
    pools: dict[str, EngineConfig] = {}
    for role in ("prefill", "decode"):
        if role not in raw:
            raise WorkloadError(f"engine.{role}", "is required with policy disagg")
        pool = parse_pool(raw[role], f"engine.{role}")
        if pool.policy != "vllm" or pool.num_speculative_tokens:
            raise WorkloadError(
                f"engine.{role}.policy", "a pool runs policy vllm without speculative decoding"
            )
        pools[role] = pool
    prefill, decode = pools["prefill"], pools["decode"]
    return EngineConfig(
        policy="disagg",
        max_num_batched_tokens=max(prefill.max_num_batched_tokens, decode.max_num_batched_tokens),
        max_num_seqs=min(prefill.max_num_seqs, decode.max_num_seqs),
        block_size=decode.block_size,
        num_blocks=decode.num_blocks,
        max_model_len=min(prefill.max_model_len, decode.max_model_len),
        enable_prefix_caching=prefill.enable_prefix_caching or decode.enable_prefix_caching,
        prefill=prefill,
        decode=decode,
        transfer=parse_transfer(raw["transfer"]) if "transfer" in raw else TransferConfig(),
    )


def check_transfer_units(engine: EngineConfig, cost: CostConfig) -> None:
    """Unit cost moves KV in `steps`; a millisecond cost model needs a bandwidth."""
    transfer = engine.transfer
    if engine.policy != "disagg" or transfer is None:
        return
    if cost.kind == "unit" and (transfer.latency or transfer.bandwidth):
        raise WorkloadError(
            "engine.transfer", "with the unit cost give steps, not latency/bandwidth"
        )
    if cost.kind != "unit":
        if transfer.steps is not None:
            raise WorkloadError(
                "engine.transfer.steps", f"only with the unit cost (cost is {cost.kind})"
            )
        if transfer.bandwidth <= 0:
            raise WorkloadError("engine.transfer.bandwidth", "must be > 0 (bytes per second)")
