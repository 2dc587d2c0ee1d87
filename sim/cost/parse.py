"""Parse the workload's `cost` object into a `CostConfig` (errors name the JSON path).

A roofline or calibrated cost on an engine that gives `capacity` runs on that machine: model,
gpu, tp and kv_dtype default to the capacity's unless the cost names them itself.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from sim.config import (
    COST_KINDS,
    DRAFT_KINDS,
    KV_DTYPE_BYTES,
    CapacityConfig,
    CostConfig,
    DraftConfig,
)
from sim.cost.data import known_gpus, known_links, known_models
from sim.errors import WorkloadError
from sim.validate import check_fields, expect_choice, expect_int, expect_number

INHERITED_FROM_CAPACITY = ("model", "gpu", "tp", "kv_dtype")
MACHINE_KINDS = ("roofline", "calibrated")


def _parse_draft(data: Any) -> DraftConfig:
    raw = check_fields(data, ("kind", "params"), "cost.draft")
    kind = expect_choice(raw.get("kind"), "cost.draft.kind", DRAFT_KINDS)
    if kind == "none":
        if "params" in raw:
            raise WorkloadError("cost.draft.params", "only a draft model has params")
        return DraftConfig()
    if "params" not in raw:
        raise WorkloadError("cost.draft.params", "is required for a draft model")
    return DraftConfig(kind, expect_number(raw["params"], "cost.draft.params", 1))


def _cost_value(name: str, value: Any) -> Any:
    path = f"cost.{name}"
    if name == "draft":
        return _parse_draft(value)
    if name == "kind":
        return expect_choice(value, path, COST_KINDS)
    if name == "model":
        return expect_choice(value, path, tuple(known_models()))
    if name == "gpu":
        return expect_choice(value, path, tuple(known_gpus()))
    if name == "kv_dtype":
        return expect_choice(value, path, tuple(KV_DTYPE_BYTES))
    if name == "tp":
        return expect_int(value, path, 1)
    if name == "link":
        return expect_choice(value, path, known_links())
    return expect_number(value, path, 0)


def parse_cost(data: Any, capacity: CapacityConfig | None = None) -> CostConfig:
    """The cost model configuration (see the module docstring for `capacity`)."""
    names = tuple(f.name for f in fields(CostConfig))
    raw = check_fields(data, names, "cost")
    values = {name: _cost_value(name, raw[name]) for name in names if name in raw}
    if values.get("mfu", 1.0) <= 0:
        raise WorkloadError("cost.mfu", "must be > 0")
    cost = CostConfig(**values)
    if cost.draft is not None and cost.draft.kind == "model" and cost.kind not in MACHINE_KINDS:
        raise WorkloadError(
            "cost.draft", "a draft model is costed on a machine (kind roofline or calibrated)"
        )
    if "link" in raw and cost.kind != "calibrated":
        raise WorkloadError("cost.link", "only the calibrated cost model prices links")
    if capacity is not None and cost.kind in MACHINE_KINDS:
        inherited = {k: getattr(capacity, k) for k in INHERITED_FROM_CAPACITY if k not in raw}
        cost = replace(cost, **inherited)
    return cost
