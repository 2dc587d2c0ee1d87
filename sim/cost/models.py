"""The step-time models. Each maps the work of one step to its duration.

`unit` returns 1.0 per step; `linear` is ``c0 + c_tok * tokens + c_kv * context`` (ms);
`roofline` is ``max(compute, memory) + overhead`` from a model and a GPU table (ms);
`calibrated` (`sim.cost.calibrated`) is the roofline fitted to published measurements (ms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sim.config import CostConfig
from sim.cost.calibrated import CalibratedCost
from sim.cost.data import gpu_table, kv_bytes_per_token, kv_bytes_per_token_at, model_table

MS_PER_S = 1000.0


@dataclass(frozen=True)
class StepWork:
    """What one step computes: new tokens, and KV tokens attention reads (context incl. new);
    with a draft model, `draft_runs` forward passes of it over `draft_batch` requests.

    `attention_pairs` counts (query token, key token) pairs under the causal mask: a request
    given n tokens after c computed ones adds ``n * c + n * (n + 1) / 2``. 0 means not counted;
    a model that needs it then takes `context_tokens` (exact when every request decodes).
    `sequences` is the number of requests the step schedules (0: not counted)."""

    scheduled_tokens: int
    context_tokens: int
    draft_runs: int = 0
    draft_batch: int = 0
    attention_pairs: int = 0
    sequences: int = 0


class CostModel(Protocol):
    """Anything that turns a step's work into a duration."""

    def step_time(self, work: StepWork) -> float:
        """Duration of a step doing `work`."""
        ...


class UnitCost:
    """Every step takes 1.0 (the time axis counts steps)."""

    def __init__(self, config: CostConfig) -> None:
        self.config = config

    def step_time(self, work: StepWork) -> float:
        """Always 1.0."""
        return 1.0


class LinearCost:
    """``c0 + c_tok * scheduled_tokens + c_kv * context_tokens`` in milliseconds."""

    def __init__(self, config: CostConfig) -> None:
        self.c0, self.c_tok, self.c_kv = config.c0, config.c_tok, config.c_kv

    def step_time(self, work: StepWork) -> float:
        """Fixed cost plus per-token and per-context-token terms."""
        return self.c0 + self.c_tok * work.scheduled_tokens + self.c_kv * work.context_tokens


class RooflineCost:
    """``max(compute, memory) / tp + allreduce + overhead`` (SIM.md, SIM-FIELD.md 3):
    compute = 2 * params * tokens / (mfu * peak), memory = (weights + kv_read) / bandwidth,
    allreduce = 2 * layers * (latency + 2 (tp-1)/tp * tokens * hidden * bytes / link_bw),
    with no all-reduce at tp = 1. KV is read at `kv_dtype`'s width (fp8 halves it)."""

    def __init__(self, config: CostConfig) -> None:
        model, gpu = model_table(config.model), gpu_table(config.gpu)
        self.flops_per_token = 2.0 * model["params"]
        self.weight_bytes = float(model["params"] * model["bytes_per_param"])
        if config.kv_dtype is None:
            self.kv_bytes_per_token = float(kv_bytes_per_token(model))
        else:
            self.kv_bytes_per_token = float(kv_bytes_per_token_at(model, config.kv_dtype))
        self.tp = config.tp
        self.allreduce_layers = 2 * int(model["layers"])
        self.activation_bytes = float(model.get("hidden_size", 0) * model["bytes_per_param"])
        self.link_bandwidth = float(gpu.get("link_bandwidth", 0.0))
        self.link_latency = float(gpu.get("link_latency", 0.0))
        self.flops = config.resolved_mfu() * float(gpu["peak_flops"])
        self.bandwidth = float(gpu["hbm_bandwidth"])
        self.overhead = config.resolved_overhead()
        draft = config.draft
        self.draft_params = draft.params if draft is not None and draft.kind == "model" else 0.0
        self.bytes_per_param = float(model["bytes_per_param"])

    def compute_ms(self, work: StepWork) -> float:
        """Time if compute-bound (each of tp GPUs does 1/tp of it)."""
        return self.flops_per_token * work.scheduled_tokens / self.flops * MS_PER_S / self.tp

    def memory_ms(self, work: StepWork) -> float:
        """Time if memory-bound: weights read once per step plus the KV read (split over tp)."""
        read = self.weight_bytes + self.kv_bytes_per_token * work.context_tokens
        return read / self.bandwidth * MS_PER_S / self.tp

    def allreduce_ms(self, work: StepWork) -> float:
        """Two all-reduces per layer over NVLink; nothing at tp = 1."""
        if self.tp == 1:
            return 0.0
        share = 2.0 * (self.tp - 1) / self.tp
        moved = share * work.scheduled_tokens * self.activation_bytes / self.link_bandwidth
        return self.allreduce_layers * (self.link_latency + moved) * MS_PER_S

    def draft_ms(self, work: StepWork) -> float:
        """The draft model's passes: each the slower of its compute and its weight read."""
        if not self.draft_params or not work.draft_runs or not work.draft_batch:
            return 0.0
        compute = 2.0 * self.draft_params * work.draft_batch / self.flops
        memory = self.draft_params * self.bytes_per_param / self.bandwidth
        return work.draft_runs * max(compute, memory) * MS_PER_S

    def step_time(self, work: StepWork) -> float:
        """The slower of compute and memory, plus all-reduce, overhead and drafting."""
        compute, memory = self.compute_ms(work), self.memory_ms(work)
        return max(compute, memory) + self.allreduce_ms(work) + self.overhead + self.draft_ms(work)


COST_MODELS: dict[
    str, type[UnitCost] | type[LinearCost] | type[RooflineCost] | type[CalibratedCost]
] = {
    "unit": UnitCost,
    "linear": LinearCost,
    "roofline": RooflineCost,
    "calibrated": CalibratedCost,
}


def build_cost_model(config: CostConfig) -> CostModel:
    """The cost model named by `config.kind`."""
    return COST_MODELS[config.kind](config)
