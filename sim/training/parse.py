"""Parse and validate a training workload (JSON data) into a `TrainWorkload`.

Every problem raises `WorkloadError` with a JSON path (``parallel.tp``) and what to change;
bounds (`sim.training.bounds`) are checked here, before any simulation. Unknown fields are an
error, as in `sim run`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sim.collectives import Link
from sim.cost.data import gpu_table, known_gpus, known_models, model_table
from sim.errors import WorkloadError
from sim.training.bounds import check_bound
from sim.training.schedules import SCHEDULES, check_schedule
from sim.training.spec import (
    ACCOUNTING,
    COST_KINDS,
    PRECISIONS,
    RECOMPUTE,
    Batch,
    Cost,
    Hardware,
    ModelArch,
    Parallel,
    TrainWorkload,
)
from sim.validate import check_fields, expect_choice, expect_int, expect_number

TOP_FIELDS = (
    "model",
    "hardware",
    "parallel",
    "batch",
    "precision",
    "recompute",
    "cost",
    "accounting",
    "scenario",
)
REQUIRED_TOP = ("model", "hardware", "parallel", "batch")
SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab")
MODEL_FIELDS = (*SHAPE_FIELDS, "params", "gated_mlp", "tied_embeddings", "id")
ARCH_KEYS = ("heads", "ffn", "vocab")  # a model table needs these to be trained
MAX_UNIT_TIME = 1e6  # unit-cost durations: small numbers a reader can follow
_SHAPE_BOUNDS = {"layers": "layers", "hidden": "hidden size", "vocab": "vocabulary"}


def _flag(raw: Mapping[str, Any], name: str, path: str, default: bool) -> bool:
    value = raw.get(name, default)
    if not isinstance(value, bool):
        raise WorkloadError(f"{path}.{name}", "must be true or false")
    return value


def _model_from_table(model_id: str) -> ModelArch:
    trainable = [m for m in known_models() if all(k in model_table(m) for k in ARCH_KEYS)]
    entry = model_table(expect_choice(model_id, "model", tuple(trainable)))
    return ModelArch(
        id=model_id,
        layers=entry["layers"],
        hidden=entry["hidden_size"],
        heads=entry["heads"],
        kv_heads=entry["kv_heads"],
        ffn=entry["ffn"],
        vocab=entry["vocab"],
        params=int(entry["params"]),
        gated_mlp=bool(entry["gated_mlp"]),
        tied_embeddings=bool(entry["tied_embeddings"]),
    )


def _model_from_shape(raw: Mapping[str, Any]) -> ModelArch:
    values: dict[str, int] = {}
    for name in SHAPE_FIELDS:
        if name not in raw:
            raise WorkloadError(f"model.{name}", "is required for a model given by its shape")
        values[name] = expect_int(raw[name], f"model.{name}", 1)
        if name in _SHAPE_BOUNDS:
            check_bound(_SHAPE_BOUNDS[name], values[name], f"model.{name}")
    for name in ("heads", "kv_heads", "ffn"):
        check_bound("hidden size", values[name], f"model.{name}")
    model_id = raw.get("id", "custom")
    if not isinstance(model_id, str) or not model_id:
        raise WorkloadError("model.id", "must be a non-empty string")
    model = ModelArch(
        id=model_id,
        params=0,
        gated_mlp=_flag(raw, "gated_mlp", "model", True),
        tied_embeddings=_flag(raw, "tied_embeddings", "model", False),
        **values,
    )
    if model.hidden % model.heads:
        raise WorkloadError("model.heads", f"must divide hidden {model.hidden}")
    if model.heads % model.kv_heads:
        raise WorkloadError("model.kv_heads", f"must divide heads {model.heads}")
    params = check_bound("parameters", model.counted_params, "model")
    if "params" in raw:
        params = expect_int(raw["params"], "model.params", 1)
        check_bound("parameters", params, "model.params")
        if params < model.counted_params:
            raise WorkloadError(
                "model.params",
                f"{params:,} is fewer than the {model.counted_params:,} the shape holds "
                "(drop params to have them counted)",
            )
    return replace(model, params=params)


def _parse_model(data: Any) -> ModelArch:
    if isinstance(data, str):
        return _model_from_table(data)
    return _model_from_shape(check_fields(data, MODEL_FIELDS, "model"))


def _parse_hardware(data: Any) -> Hardware:
    raw = check_fields(data, ("gpu", "gpus_per_node", "nodes"), "hardware")
    if "gpu" not in raw:
        raise WorkloadError("hardware.gpu", f"is required (one of {', '.join(known_gpus())})")
    gpu_id = expect_choice(raw["gpu"], "hardware.gpu", tuple(known_gpus()))
    per_node = expect_int(raw.get("gpus_per_node", 8), "hardware.gpus_per_node", 1)
    nodes = expect_int(raw.get("nodes", 1), "hardware.nodes", 1)
    check_bound("gpus", per_node, "hardware.gpus_per_node")
    check_bound("gpus", per_node * nodes, "hardware.nodes")
    gpu = gpu_table(gpu_id)
    return Hardware(
        gpu=gpu_id,
        gpus_per_node=per_node,
        nodes=nodes,
        peak_flops=float(gpu["peak_flops"]),
        hbm_bytes=int(gpu["hbm_bytes"]),
        nvlink=Link("nvlink", float(gpu["link_bandwidth"]), float(gpu["nvlink_ring_step_latency"])),
        network=Link(
            "network", float(gpu["network_bandwidth"]), float(gpu["network_ring_step_latency"])
        ),
    )


def _parse_parallel(data: Any) -> Parallel:
    names = ("dp", "tp", "pp", "virtual_stages", "schedule", "zero", "sequence_parallel")
    raw = check_fields(data, names, "parallel")
    degrees = {
        name: check_bound(
            "gpus", expect_int(raw.get(name, 1), f"parallel.{name}", 1), f"parallel.{name}"
        )
        for name in ("dp", "tp", "pp")
    }
    v = expect_int(raw.get("virtual_stages", 1), "parallel.virtual_stages", 1)
    check_bound("virtual stages", v, "parallel.virtual_stages")
    schedule = expect_choice(raw.get("schedule", "1f1b"), "parallel.schedule", SCHEDULES)
    zero = expect_int(raw.get("zero", 0), "parallel.zero", 0)
    if zero > 3:
        raise WorkloadError("parallel.zero", "must be 0, 1, 2 or 3")
    sp = _flag(raw, "sequence_parallel", "parallel", False)
    return Parallel(virtual_stages=v, schedule=schedule, zero=zero, sequence_parallel=sp, **degrees)


def _parse_batch(data: Any, dp: int) -> Batch:
    raw = check_fields(data, ("global_batch", "micro_batch", "seq_len"), "batch")
    values = {}
    for name in ("global_batch", "micro_batch", "seq_len"):
        if name not in raw:
            raise WorkloadError(f"batch.{name}", "is required")
        values[name] = expect_int(raw[name], f"batch.{name}", 1)
    check_bound("sequences per step", values["global_batch"], "batch.global_batch")
    check_bound("sequences per step", values["micro_batch"], "batch.micro_batch")
    check_bound("tokens per sequence", values["seq_len"], "batch.seq_len")
    per_replica = dp * values["micro_batch"]
    if values["global_batch"] % per_replica:
        raise WorkloadError(
            "batch.global_batch",
            f"{values['global_batch']} is not a whole number of micro-batches: it must be a "
            f"multiple of dp × micro_batch = {per_replica}",
        )
    m = values["global_batch"] // per_replica
    check_bound("micro-batches per pipeline", m, "batch.global_batch")
    return Batch(microbatches=m, **values)


def _unit_time(value: Any, name: str) -> float:
    number = expect_number(value, f"cost.{name}", 0)
    if number > MAX_UNIT_TIME:
        raise WorkloadError(f"cost.{name}", f"must be at most {MAX_UNIT_TIME:,.0f} (a time unit)")
    return number


def _parse_cost(data: Any) -> Cost:
    raw = check_fields(
        data, ("kind", "forward", "backward", "p2p", "efficiency", "overlap"), "cost"
    )
    kind = expect_choice(raw.get("kind", "unit"), "cost.kind", COST_KINDS)
    only = ("forward", "backward", "p2p") if kind == "roofline" else ("efficiency", "overlap")
    for name in only:
        if name in raw:
            raise WorkloadError(f"cost.{name}", f"does not apply to a {kind} cost")
    if kind == "unit":
        defaults = {"forward": 1.0, "backward": 2.0, "p2p": 0.0}
        values = {
            name: _unit_time(raw.get(name, default), name) for name, default in defaults.items()
        }
        if values["forward"] + values["backward"] <= 0:
            raise WorkloadError("cost", "forward + backward must be > 0")
        return Cost(kind, values["forward"], values["backward"], values["p2p"])
    efficiency = expect_number(raw.get("efficiency", 0.5), "cost.efficiency", 0)
    if not 0 < efficiency <= 1:
        raise WorkloadError("cost.efficiency", "must be in (0, 1]: the share of dense peak reached")
    return Cost(kind, efficiency=efficiency, overlap=_flag(raw, "overlap", "cost", True))


def _check_shape(model: ModelArch, hardware: Hardware, par: Parallel) -> None:
    world = par.dp * par.tp * par.pp
    if world != hardware.gpus:
        raise WorkloadError(
            "parallel",
            f"dp × tp × pp = {world} but the hardware has {hardware.gpus} GPUs "
            f"({hardware.gpus_per_node} per node × {hardware.nodes} nodes); make them equal",
        )
    if model.heads % par.tp or model.ffn % par.tp:
        raise WorkloadError(
            "parallel.tp", f"{par.tp} must divide the {model.heads} heads and ffn {model.ffn}"
        )
    if model.layers % par.stages:
        raise WorkloadError(
            "parallel.pp",
            f"pp × virtual_stages = {par.stages} must divide the model's {model.layers} layers",
        )


def _parse_scenario(data: Any) -> dict[str, str]:
    raw = check_fields(data, ("id", "title"), "scenario")
    for name in raw:
        if not isinstance(raw[name], str):
            raise WorkloadError(f"scenario.{name}", "must be a string")
    return dict(raw)


def parse_train_workload(data: Any) -> TrainWorkload:
    """Validate `data` (the JSON object) and build the typed workload; bounds first."""
    raw = check_fields(data, TOP_FIELDS, "")
    for name in REQUIRED_TOP:
        if name not in raw:
            raise WorkloadError(name, "is required")
    model = _parse_model(raw["model"])
    hardware = _parse_hardware(raw["hardware"])
    par = _parse_parallel(raw["parallel"])
    batch = _parse_batch(raw["batch"], par.dp)
    actions = 2 * batch.microbatches * par.stages
    check_bound("pipeline actions (2 · micro-batches · pp · virtual stages)", actions, "batch")
    _check_shape(model, hardware, par)
    check_schedule(par.schedule, par.pp, batch.microbatches, par.virtual_stages)
    return TrainWorkload(
        model=model,
        hardware=hardware,
        parallel=par,
        batch=batch,
        precision=expect_choice(raw.get("precision", "bf16"), "precision", PRECISIONS),
        recompute=expect_choice(raw.get("recompute", "none"), "recompute", RECOMPUTE),
        cost=_parse_cost(raw.get("cost", {"kind": "unit"})),
        accounting=expect_choice(raw.get("accounting", "deepspeed"), "accounting", ACCOUNTING),
        scenario=_parse_scenario(raw["scenario"]) if "scenario" in raw else None,
    )
