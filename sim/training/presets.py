"""Named training workloads for `python -m sim train --preset NAME` and the page.

Two kinds: comics (unit cost, small enough to draw every action: 4 GPUs, 8 micro-batches) and
realistic runs (a real model on real GPUs under the roofline cost). The engine never imports
this module; the command line and the page's field do.
"""

from __future__ import annotations

import copy
from typing import Any

from sim.errors import PresetNotFound


def _comic(name: str, schedule: str, virtual_stages: int, title: str) -> dict[str, Any]:
    return {
        "model": "llama-3-8b",
        "hardware": {"gpu": "h100-sxm", "gpus_per_node": 4, "nodes": 1},
        "parallel": {"pp": 4, "schedule": schedule, "virtual_stages": virtual_stages},
        "batch": {"global_batch": 8, "micro_batch": 1, "seq_len": 4096},
        "recompute": "full",
        "cost": {"kind": "unit", "forward": 1, "backward": 2},
        "scenario": {"id": name, "title": title},
    }


def _zero(stage: int) -> dict[str, Any]:
    return {
        "model": "llama-3-8b",
        "hardware": {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 1},
        "parallel": {"dp": 8, "zero": stage},
        "batch": {"global_batch": 32, "micro_batch": 1, "seq_len": 4096},
        "recompute": "selective",
        "cost": {"kind": "roofline", "efficiency": 0.5},
        "scenario": {
            "id": f"zero-{stage}",
            "title": f"Llama-3-8B on 8 H100s, data parallel with ZeRO-{stage}",
        },
    }


def _megatron(
    model: str, gpu: str, degrees: dict[str, int], *, global_batch: int, seq_len: int, title: str
) -> dict[str, Any]:
    """A Megatron-style run: 1F1B, distributed optimizer (ZeRO-1), sequence parallelism,
    selective recomputation, one sequence per micro-batch, 8 GPUs a node."""
    gpus = degrees["dp"] * degrees["tp"] * degrees["pp"]
    name = f"{model}-{gpus}x{gpu.split('-')[0]}"
    return {
        "model": model,
        "hardware": {"gpu": gpu, "gpus_per_node": 8, "nodes": gpus // 8},
        "parallel": {**degrees, "schedule": "1f1b", "zero": 1, "sequence_parallel": True},
        "batch": {"global_batch": global_batch, "micro_batch": 1, "seq_len": seq_len},
        "recompute": "selective",
        "cost": {"kind": "roofline", "efficiency": 0.5},
        "scenario": {"id": name, "title": title},
    }


PRESETS: dict[str, dict[str, Any]] = {
    "pipeline-gpipe": _comic(
        "pipeline-gpipe", "gpipe", 1, "4 GPUs, 8 micro-batches, GPipe (fill, then drain)"
    ),
    "pipeline-1f1b": _comic("pipeline-1f1b", "1f1b", 1, "4 GPUs, 8 micro-batches, 1F1B"),
    "pipeline-interleaved": _comic(
        "pipeline-interleaved",
        "interleaved_1f1b",
        2,
        "4 GPUs, 8 micro-batches, interleaved 1F1B with 2 stages per GPU",
    ),
    "zero-0": _zero(0),
    "zero-1": _zero(1),
    "zero-2": _zero(2),
    "zero-3": _zero(3),
    "llama-3-70b-64xh100": _megatron(
        "llama-3-70b",
        "h100-sxm",
        {"dp": 2, "tp": 8, "pp": 4},
        global_batch=64,
        seq_len=8192,
        title=("Llama-3-70B on 64 H100s: tensor parallel 8 in a node, pipeline 4 and data "
               "parallel 2 across nodes"),
    ),
    "gpt-3-175b-1024xa100": _megatron(
        "gpt-3-175b",
        "a100-80gb",
        {"dp": 8, "tp": 8, "pp": 16},
        global_batch=2048,
        seq_len=2048,
        title="GPT-3 175B on 1,024 A100s: tp 8, pp 16, dp 8, 256 micro-batches a step",
    ),
}


def preset_names() -> list[str]:
    """Every preset name, in the order above."""
    return list(PRESETS)


def train_preset(name: str) -> dict[str, Any]:
    """A fresh copy of the named workload (raises `PresetNotFound`)."""
    if name not in PRESETS:
        raise PresetNotFound(name, preset_names())
    return copy.deepcopy(PRESETS[name])
