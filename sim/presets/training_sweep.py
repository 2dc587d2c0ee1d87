"""The training field's ruler: each technique measured by `sim train` on a named, realistic
workload where it matters (its row's regime), as a baseline run and a variant run that differ in
that technique only.

Metrics (every technique has all five): `memory` — the fullest GPU's memory in GB; `step_time`
— one optimizer step in seconds; `mfu` — model FLOPs utilisation in percent; `tokens_per_s`
— training tokens per second over the whole cluster; `bubble` — the pipeline's idle share of
the step in percent (0 without a pipeline). Roofline cost at half the dense bf16 peak, overlapped
data-parallel traffic unless the row says otherwise. Deterministic: no randomness anywhere.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.presets.training import ROOFLINE, data_parallel, split_layers, three_d
from sim.training.presets import train_preset
from sim.training.run import run_training

SWEEP_DECIMALS = 3
METRICS = ("memory", "step_time", "mfu", "tokens_per_s", "bubble")
UNITS = {"memory": "GB on the fullest GPU", "step_time": "s per optimizer step",
         "mfu": "% of the GPUs' dense bf16 peak", "tokens_per_s": "tokens/s, whole cluster",
         "bubble": "% of the step a pipeline GPU idles"}
Workload = dict[str, Any]


@dataclass(frozen=True)
class TrainingTechnique:
    """One ruler row: what it compares, the workload it runs on, and its two workloads."""

    id: str
    label: str
    workload: str  # the named workload, as the ruler prints it
    baseline: Callable[[], Workload]
    variant: Callable[[], Workload]


def _llama_70b(**parallel: Any) -> Workload:
    """Llama-3-70B on 64 H100s (8 nodes), Megatron-style: 1F1B, ZeRO-1, sequence parallelism,
    selective recomputation, 64 sequences of 8,192 tokens a step (`sim.training.presets`)."""
    workload = train_preset("llama-3-70b-64xh100")
    workload["parallel"].update(parallel)
    del workload["scenario"]
    return workload


def _llama_8b_16(m: int, overlap: bool = True) -> Workload:
    """Llama-3-8B on 16 H100s in 2 nodes of 8, data parallel with ZeRO-1, `m` micro-batches of
    one 2,048-token sequence per GPU a step."""
    return data_parallel(16, 1, m=m, overlap=overlap)


# Sharding's traffic shows where it crosses servers: inside one node NVLink hides it all
_DP16 = ("Llama-3-8B on 16 H100s in 2 nodes, data parallel, 4 micro-batches of one 2,048-token "
         "sequence per GPU a step")
_70B = ("Llama-3-70B on 64 H100s: tensor parallel 8 in a node, pipeline 4, data parallel 2, "
        "ZeRO-1, 64 sequences of 8,192 tokens a step (32 micro-batches)")
_16 = "Llama-3-8B on 16 H100s in 2 nodes, data parallel with ZeRO-1, sequences of 2,048 tokens"

TECHNIQUES: tuple[TrainingTechnique, ...] = (
    TrainingTechnique("zero_1", "ZeRO-1 (optimizer states sharded) vs plain DP", _DP16,
                      lambda: data_parallel(16, 0), lambda: data_parallel(16, 1)),
    TrainingTechnique("zero_2", "ZeRO-2 (optimizer states and gradients sharded) vs plain DP",
                      _DP16, lambda: data_parallel(16, 0), lambda: data_parallel(16, 2)),
    TrainingTechnique("zero_3", "ZeRO-3 / FSDP (weights sharded too) vs plain DP", _DP16,
                      lambda: data_parallel(16, 0), lambda: data_parallel(16, 3)),
    TrainingTechnique(
        "full_recompute", "full activation recomputation vs none",
        "Llama-3-8B on 8 H100s, ZeRO-1, micro-batches of 2 sequences of 2,048 tokens",
        lambda: data_parallel(8, 1, micro_batch=2),
        lambda: data_parallel(8, 1, micro_batch=2, recompute="full"),
    ),
    TrainingTechnique("one_f_one_b", "1F1B vs GPipe pipeline schedule", _70B,
                      lambda: _llama_70b(schedule="gpipe"), lambda: _llama_70b(schedule="1f1b")),
    TrainingTechnique(
        "interleaving", "interleaved 1F1B, 2 stages per GPU, vs 1F1B", _70B,
        lambda: _llama_70b(schedule="1f1b"),
        lambda: _llama_70b(schedule="interleaved_1f1b", virtual_stages=2),
    ),
    TrainingTechnique(
        "tp_for_recompute",
        "tensor parallel over 2 GPUs with sequence parallelism, nothing recomputed, vs full "
        "recomputation",
        "Llama-3-8B on 8 H100s, ZeRO-1, micro-batches of 2 sequences of 2,048 tokens",
        lambda: data_parallel(8, 1, micro_batch=2, recompute="full"), lambda: split_layers(2),
    ),
    TrainingTechnique(
        "more_tp", "tensor parallel over 8 GPUs (dp 2) vs over 4 (dp 4)",
        "Llama-3-70B on 64 H100s, pp 4, ZeRO-1, 64 sequences of 8,192 tokens a step",
        lambda: _llama_70b(tp=4, dp=4), lambda: _llama_70b(tp=8, dp=2),
    ),
    TrainingTechnique(
        "three_d", "3D: tensor parallel 8 in a node, 2 pipeline stages across nodes, vs tensor "
        "parallel 16 across two nodes",
        "Llama-3-70B on 64 H100s in 8 nodes, 4 data-parallel copies, ZeRO-1, selective "
        "recomputation, 64 sequences of 4,096 tokens a step",
        lambda: three_d(16, 1), lambda: three_d(8, 2),
    ),
    # At one global batch (what training asks for): 8 micro-batches of 1 sequence accumulated
    # instead of one micro-batch of 8, so the activations of one sequence are held at a time
    TrainingTechnique(
        "grad_accumulation",
        "8 accumulated micro-batches of 1 sequence vs 1 micro-batch of 8, same global batch",
        _16 + ", a global batch of 128 sequences",
        lambda: data_parallel(16, 1, m=1, micro_batch=8),
        lambda: data_parallel(16, 1, m=8, micro_batch=1),
    ),
    TrainingTechnique(
        "comm_overlap", "gradient all-reduce overlapped with the last backward vs after it",
        _16 + ", 4 micro-batches per GPU a step",
        lambda: _llama_8b_16(4, overlap=False), lambda: _llama_8b_16(4),
    ),
)


def measure(output: dict[str, Any]) -> dict[str, float]:
    """The ruler's metrics of one `sim train` output."""
    step = output["step"]
    mfu = step["mfu"]
    return {
        "memory": round(output["memory_peak"]["total"] / 1e9, SWEEP_DECIMALS),
        "step_time": round(step["step_time"], SWEEP_DECIMALS),
        "mfu": round(100.0 * mfu, SWEEP_DECIMALS) if mfu is not None else 0.0,
        "tokens_per_s": round(step["tokens_per_s"], SWEEP_DECIMALS - 2),
        "bubble": round(100.0 * output["bubble_fraction"], SWEEP_DECIMALS),
    }


def _change(base: float, variant: float) -> float | None:
    """Percent change; None only when a zero baseline moved (it has no percentage)."""
    if not base:
        return 0.0 if not variant else None
    return round((variant - base) / base * 100.0, 1)


def _row(tech: TrainingTechnique) -> dict[str, Any]:
    runs: dict[str, dict[str, Any]] = {}
    for role, build in (("baseline", tech.baseline), ("variant", tech.variant)):
        workload = build()
        out = run_training(copy.deepcopy(workload))
        runs[role] = {"workload": workload, **measure(out),
                      "fits": bool(out["memory_peak"]["fits"])}
    return {
        "id": tech.id,
        "label": tech.label,
        "workload": tech.workload,
        "baseline": runs["baseline"],
        "variant": runs["variant"],
        "change_pct": {m: _change(runs["baseline"][m], runs["variant"][m]) for m in METRICS},
    }


def training_sweep() -> dict[str, Any]:
    """Every technique's pair of runs and its change per metric (JSON-ready, deterministic)."""
    return {
        "workload": {
            "description": (
                "Each row is one technique on its own named workload, where it matters: ZeRO "
                "on a data-parallel Llama-3-8B that plain DP cannot fit; recomputation where "
                "activations overflow; the pipeline schedules and more tensor parallelism on "
                "Llama-3-70B over 64 H100s; accumulation and overlap where the all-reduce "
                "crosses nodes. Roofline cost at half the H100's dense bf16 peak "
                "(sim train, SIM-TRAINING.md)."
            ),
            "cost": ROOFLINE,
            "units": UNITS,
        },
        "metrics": list(METRICS),
        "techniques": [_row(t) for t in TECHNIQUES],
    }
