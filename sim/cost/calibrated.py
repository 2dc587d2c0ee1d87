"""The calibrated cost model: a roofline whose efficiencies, fixed costs and link speeds are
fitted to published measurements (`sim/data/calibration/`, `python -m sim calibrate`).

One step, on each of the tp GPUs that share the model, takes (ms)

    overhead(gpu) + seq_ms * sequences              launch and scheduling; sampling and
                                                    bookkeeping per scheduled request
  + max(dense FLOPs / (peak * compute_fraction),    the matrix multiplies: compute-bound
        weights / (hbm * weight_fraction))          in prefill, weight-read-bound in decode
  + max(attention FLOPs / (peak * attention_fraction),
        KV read / (hbm * kv_fraction))              attention, its own kernels
  + fp8_step_ms                                     fp8 KV only: quantising queries and K/V
  + 2 * layers * (allreduce(tokens * hidden * 2 B)  tp > 1: two all-reduces per layer, each
                  + tp_sync_ms)                     the collective plus what a real step
                                                    spends around it (GPUs waiting for each other)

with fp8 KV read at half the bytes times `fp8_kv_read_factor` (the dequantisation the vLLM
FP8 KV-cache blog measured). `step_terms` and `step_ms` are the one formula: the cost model
calls them with numbers, the fit (`sim.cost.fit`) with arrays of a run's steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from sim.config import KV_DTYPE_BYTES, CostConfig
from sim.cost.collective import allreduce_seconds
from sim.cost.data import calibration_table, gpu_table, kv_bytes_per_token, model_table
from sim.errors import WorkloadError

MS_PER_S = 1000.0
ACTIVATION_BYTES = 2  # bf16 activations cross the tp all-reduce
# (query, key) pair in one layer: QK^T and PV, 2 FLOPs per multiply-add each, over all heads
ATTENTION_FLOPS_PER_PAIR_PER_HIDDEN = 4.0


@dataclass(frozen=True)
class Machine:
    """What one (model, GPU, tp, KV dtype) costs per unit of work, before any efficiency:
    milliseconds at peak FLOP/s or peak HBM bandwidth, per GPU (each holds 1/tp)."""

    gpu: str
    tp: int
    fp8: bool
    dense_ms_per_token: float
    weights_ms: float
    attention_ms_per_pair: float  # already at the sourced attention fraction
    kv_ms_per_token: float  # at the cache's own width (fp8: half of bf16)
    allreduce_calls: int
    allreduce_bytes_per_token: float  # message bytes per scheduled token


def machine(model_id: str, gpu_id: str, tp: int = 1, kv_dtype: str | None = None) -> Machine:
    """The per-unit costs of `model_id` on `tp` GPUs of kind `gpu_id`."""
    model, gpu = model_table(model_id), gpu_table(gpu_id)
    peak, hbm = float(gpu["peak_flops"]), float(gpu["hbm_bandwidth"])
    fraction = calibration_table("sourced")["attention_compute_fraction"][gpu_id]["value"]
    hidden = float(model["hidden_size"])
    kv_bytes = float(kv_bytes_per_token(model))
    if kv_dtype is not None:
        kv_bytes *= KV_DTYPE_BYTES[kv_dtype] / model["kv_bytes_per_elem"]
    attention_flops = ATTENTION_FLOPS_PER_PAIR_PER_HIDDEN * model["layers"] * hidden
    return Machine(
        gpu=gpu_id,
        tp=tp,
        fp8=kv_dtype == "fp8",
        dense_ms_per_token=2.0 * model["params"] / tp / peak * MS_PER_S,
        weights_ms=model["params"] * model["bytes_per_param"] / tp / hbm * MS_PER_S,
        attention_ms_per_pair=attention_flops / tp / (peak * fraction) * MS_PER_S,
        kv_ms_per_token=kv_bytes / tp / hbm * MS_PER_S,
        allreduce_calls=2 * int(model["layers"]) if tp > 1 else 0,
        allreduce_bytes_per_token=hidden * ACTIVATION_BYTES,
    )


@dataclass(frozen=True)
class Params:
    """The fitted numbers, as multipliers of the peak times (1 / efficiency) and milliseconds."""

    overhead_ms: float
    compute_scale: float
    weight_scale: float
    kv_scale: float
    fp8_kv_scale: float  # multiplies the fp8 (half-width) KV read time at peak
    fp8_step_ms: float
    seq_ms: float
    link: dict[str, float]  # {"latency": s, "bandwidth": bytes/s} for `allreduce_seconds`
    tp_sync_ms: float  # per all-reduce call in a step, beyond the collective itself


def step_terms(
    m: Machine, tokens: Any, context: Any, pairs: Any, sequences: Any
) -> dict[str, Any]:
    """A step's costs at peak (ms) and its all-reduce message; numbers or numpy arrays."""
    return {
        "sequences": sequences,
        "dense": m.dense_ms_per_token * tokens,
        "weights": m.weights_ms + 0.0 * tokens,
        "attention": m.attention_ms_per_pair * pairs,
        "kv": m.kv_ms_per_token * context,
        "message_bytes": m.allreduce_bytes_per_token * tokens,
    }


def step_ms(m: Machine, terms: dict[str, Any], p: Params) -> Any:
    """The step time (ms) of `terms` under `p` (see the module docstring)."""
    kv_scale = p.fp8_kv_scale if m.fp8 else p.kv_scale
    gemm = np.maximum(p.compute_scale * terms["dense"], p.weight_scale * terms["weights"])
    attention = np.maximum(terms["attention"], kv_scale * terms["kv"])
    one = allreduce_seconds(terms["message_bytes"], m.tp, p.link) if m.allreduce_calls else 0.0
    link = m.allreduce_calls * (one * MS_PER_S + p.tp_sync_ms)
    fixed = p.overhead_ms + p.seq_ms * terms["sequences"]
    if m.fp8:
        fixed = fixed + p.fp8_step_ms
    return fixed + gemm + attention + link


def link_params(kind: str) -> dict[str, float]:
    """``{"latency": s, "bandwidth": bytes/s}`` of a link kind (NVLink fitted, others sourced)."""
    if kind == "nvlink":
        fitted = calibration_table("fitted")["nvlink"]
        bandwidth = fitted["bandwidth"]  # None: the fit found no bandwidth term
        return {
            "latency": float(fitted["latency"]),
            "bandwidth": float("inf") if bandwidth is None else float(bandwidth),
        }
    sourced = calibration_table("sourced")["links"][kind]
    return {"latency": float(sourced["latency"]), "bandwidth": float(sourced["bandwidth"])}


def fitted_params(gpu_id: str, link: str = "nvlink") -> Params:
    """The fitted parameters for `gpu_id` with tp all-reduces over `link`."""
    fitted = calibration_table("fitted")
    overheads = fitted["step_overhead_ms"]
    if gpu_id not in overheads:
        raise WorkloadError(
            "cost.gpu",
            f"no calibrated step overhead for {gpu_id!r} (measured: {', '.join(overheads)}); "
            "give cost.overhead or add a measurement (README: calibration)",
        )
    return Params(
        overhead_ms=float(overheads[gpu_id]),
        compute_scale=1.0 / float(fitted["compute_fraction"]),
        weight_scale=1.0 / float(fitted["weight_bandwidth_fraction"]),
        kv_scale=1.0 / float(fitted["kv_bandwidth_fraction"]),
        fp8_kv_scale=float(fitted["fp8_kv_read_factor"]) / float(fitted["kv_bandwidth_fraction"]),
        fp8_step_ms=float(fitted["fp8_step_ms"]),
        seq_ms=float(fitted["sequence_ms"]),
        link=link_params(link),
        tp_sync_ms=float(fitted["tp_sync_ms"]),
    )


class CalibratedCost:
    """The calibrated step time; `compute_ms`, `memory_ms`, `allreduce_ms` and `overhead` split a
    step the way the roofline's do, so the page's figures read either model."""

    def __init__(self, config: CostConfig) -> None:
        self.machine = machine(config.model, config.gpu, config.tp, config.kv_dtype)
        self.tp = config.tp
        params = fitted_params(config.gpu, config.link or "nvlink")
        if config.mfu is not None:
            params = replace(params, compute_scale=1.0 / config.mfu)
        if config.overhead is not None:
            params = replace(params, overhead_ms=config.overhead)
        self.params = params
        self.overhead = params.overhead_ms
        draft = config.draft
        self.draft_params = draft.params if draft is not None and draft.kind == "model" else 0.0
        self.bytes_per_param = float(model_table(config.model)["bytes_per_param"])
        self.gpu = gpu_table(config.gpu)

    def _terms(self, work: Any) -> dict[str, Any]:
        # Not counted (0): what a step of decodes has (one token and its context per request).
        pairs = work.attention_pairs or work.context_tokens
        seqs = work.sequences or work.scheduled_tokens
        return step_terms(self.machine, work.scheduled_tokens, work.context_tokens, pairs, seqs)

    def fixed_ms(self, work: Any) -> float:
        """The step's fixed part: per-step and per-sequence costs (and fp8's per-step cost)."""
        terms = self._terms(work)
        fixed = self.params.overhead_ms + self.params.seq_ms * terms["sequences"]
        return float(fixed + (self.params.fp8_step_ms if self.machine.fp8 else 0.0))

    def compute_ms(self, work: Any) -> float:
        """The step's arithmetic: dense layers at the fitted fraction, attention at the sourced."""
        terms = self._terms(work)
        return float(self.params.compute_scale * terms["dense"] + terms["attention"])

    def memory_ms(self, work: Any) -> float:
        """The step's HBM reads: weights and the KV cache, at the fitted fractions."""
        terms = self._terms(work)
        kv_scale = self.params.fp8_kv_scale if self.machine.fp8 else self.params.kv_scale
        return float(self.params.weight_scale * terms["weights"] + kv_scale * terms["kv"])

    def allreduce_ms(self, work: Any) -> float:
        """Two all-reduces per layer of the step's activations, each with the fitted wait around
        it (nothing at tp = 1)."""
        calls = self.machine.allreduce_calls
        if not calls:
            return 0.0
        nbytes = work.scheduled_tokens * self.machine.allreduce_bytes_per_token
        one = allreduce_seconds(nbytes, self.tp, self.params.link) * MS_PER_S
        return calls * (one + self.params.tp_sync_ms)

    def draft_ms(self, work: Any) -> float:
        """A draft model's passes at the same fractions: each its compute or its weight read."""
        if not self.draft_params or not work.draft_runs or not work.draft_batch:
            return 0.0
        peak, hbm = float(self.gpu["peak_flops"]), float(self.gpu["hbm_bandwidth"])
        compute = self.params.compute_scale * 2.0 * self.draft_params * work.draft_batch / peak
        memory = self.params.weight_scale * self.draft_params * self.bytes_per_param / hbm
        return work.draft_runs * max(compute, memory) * MS_PER_S

    def step_time(self, work: Any) -> float:
        """The calibrated step time in ms (module docstring), plus drafting."""
        return float(step_ms(self.machine, self._terms(work), self.params)) + self.draft_ms(work)
