"""Model and GPU tables, loaded from `sim/data/model-*.json` and `gpu-*.json` (each cites its source),
and the calibrated cost model's constants from `sim/data/calibration/` (`sourced.json`: taken from
publications; `fitted.json`: written by `python -m sim calibrate --write`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CALIBRATION_DIR = DATA_DIR / "calibration"
LINK_KINDS = ("nvlink", "pcie", "network")


@cache
def _table(kind: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(DATA_DIR.glob(f"{kind}-*.json")):
        entry = json.loads(path.read_text(encoding="utf-8"))
        out[entry["id"]] = entry
    return out


def known_models() -> list[str]:
    """Ids of the model tables (e.g. ``llama-3-8b``)."""
    return sorted(_table("model"))


def known_gpus() -> list[str]:
    """Ids of the GPU tables (e.g. ``h100-sxm``)."""
    return sorted(_table("gpu"))


def model_table(model_id: str) -> dict[str, Any]:
    """One model's table (params, layers, kv_heads, head_dim, bytes, source)."""
    return _table("model")[model_id]


def gpu_table(gpu_id: str) -> dict[str, Any]:
    """One GPU's table (peak_flops, hbm_bandwidth, hbm_bytes, source)."""
    return _table("gpu")[gpu_id]


def kv_bytes_per_token(model: dict[str, Any]) -> int:
    """2 (K and V) * layers * kv_heads * head_dim * bytes per element."""
    return int(
        2 * model["layers"] * model["kv_heads"] * model["head_dim"] * model["kv_bytes_per_elem"]
    )


def kv_bytes_per_token_at(model: dict[str, Any], kv_dtype: str) -> int:
    """KV bytes per token when the cache is stored at `kv_dtype` (bf16 2 bytes, fp8 1)."""
    from sim.config import KV_DTYPE_BYTES

    return int(
        2 * model["layers"] * model["kv_heads"] * model["head_dim"] * KV_DTYPE_BYTES[kv_dtype]
    )


@cache
def calibration_table(name: str) -> dict[str, Any]:
    """One of the calibration files (`sourced`, `fitted`, `measurements`), parsed."""
    data: dict[str, Any] = json.loads((CALIBRATION_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return data


def known_links() -> tuple[str, ...]:
    """Link kinds a tp all-reduce can cross: NVLink (fitted), PCIe and network (sourced)."""
    return LINK_KINDS
