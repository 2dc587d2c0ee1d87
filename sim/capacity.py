"""KV capacity from model x GPU x KV dtype (SIM-FIELD.md 2), every term kept for the page.

    kv_bytes_per_token = 2 * layers * kv_heads * head_dim * bytes(kv_dtype)
    num_blocks = floor((hbm_bytes * utilization * tp - weight_bytes - reserve_bytes)
                       / (block_size * kv_bytes_per_token))

Weights and KV heads are split over the tp GPUs, so the pool is the sum of their memory.
"""

from __future__ import annotations

import math
from typing import Any

from sim.config import DEFAULT_GPU_MEMORY_UTILIZATION, KV_DTYPE_BYTES, CapacityConfig
from sim.cost.data import gpu_table, kv_bytes_per_token_at, model_table
from sim.errors import WorkloadError


def capacity_terms(cap: CapacityConfig, block_size: int) -> dict[str, Any]:
    """Every term of the arithmetic, ending in `num_blocks` (may be <= 0: see `resolve_blocks`)."""
    model, gpu = model_table(cap.model), gpu_table(cap.gpu)
    hbm = int(gpu["hbm_bytes"])
    usable = hbm * cap.gpu_memory_utilization * cap.tp
    weights = int(model["params"] * model["bytes_per_param"])
    per_token = kv_bytes_per_token_at(model, cap.kv_dtype)
    kv_budget = usable - weights - cap.reserve_bytes
    return {
        "model": cap.model,
        "gpu": cap.gpu,
        "tp": cap.tp,
        "kv_dtype": cap.kv_dtype,
        "gpu_memory_utilization": cap.gpu_memory_utilization,
        "hbm_bytes_per_gpu": hbm,
        "usable_bytes": usable,
        "weight_bytes": weights,
        "weight_bytes_per_gpu": weights / cap.tp,
        "reserve_bytes": cap.reserve_bytes,
        "kv_budget_bytes": kv_budget,
        "kv_bytes_per_token": per_token,
        "tokens_fit": max(0, math.floor(kv_budget / per_token)),
        "block_size": block_size,
        "block_bytes": block_size * per_token,
        "num_blocks": math.floor(kv_budget / (block_size * per_token)),
    }


def resolve_blocks(cap: CapacityConfig, block_size: int, path: str = "engine.capacity") -> int:
    """num_blocks for a capacity; a capacity that leaves no block is an error naming the numbers."""
    terms = capacity_terms(cap, block_size)
    if terms["num_blocks"] < 1:
        gb = 1e9
        raise WorkloadError(
            path,
            f"{cap.model} on {cap.tp} x {cap.gpu} leaves no KV block: "
            f"{terms['usable_bytes'] / gb:.2f} GB usable ({terms['hbm_bytes_per_gpu'] / gb:.0f} GB "
            f"x {cap.gpu_memory_utilization} x tp {cap.tp}) - {terms['weight_bytes'] / gb:.2f} GB "
            f"weights - {cap.reserve_bytes / gb:.2f} GB reserved = "
            f"{terms['kv_budget_bytes'] / gb:.2f} GB for KV, one block needs "
            f"{terms['block_bytes'] / 1e6:.2f} MB (raise tp or utilization, or use kv_dtype fp8)",
        )
    return int(terms["num_blocks"])


CAPACITY_FIELDS = ("model", "gpu", "tp", "kv_dtype", "gpu_memory_utilization", "reserve_bytes")


def parse_capacity(data: Any, path: str = "engine.capacity") -> CapacityConfig:
    """Validate a capacity object (model and gpu required; the rest have defaults)."""
    from sim.cost.data import known_gpus, known_models
    from sim.validate import check_fields, expect_choice, expect_int, expect_number

    raw = check_fields(data, CAPACITY_FIELDS, path)
    for key in ("model", "gpu"):
        if key not in raw:
            raise WorkloadError(f"{path}.{key}", "is required")
    utilization = expect_number(
        raw.get("gpu_memory_utilization", DEFAULT_GPU_MEMORY_UTILIZATION),
        f"{path}.gpu_memory_utilization",
        0,
    )
    if not 0 < utilization <= 1:
        raise WorkloadError(f"{path}.gpu_memory_utilization", "must be in (0, 1]")
    return CapacityConfig(
        model=expect_choice(raw["model"], f"{path}.model", tuple(known_models())),
        gpu=expect_choice(raw["gpu"], f"{path}.gpu", tuple(known_gpus())),
        tp=expect_int(raw.get("tp", 1), f"{path}.tp", 1),
        kv_dtype=expect_choice(
            raw.get("kv_dtype", "bf16"), f"{path}.kv_dtype", tuple(KV_DTYPE_BYTES)
        ),
        gpu_memory_utilization=utilization,
        reserve_bytes=expect_int(raw.get("reserve_bytes", 0), f"{path}.reserve_bytes", 0),
    )
