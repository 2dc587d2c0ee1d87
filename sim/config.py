"""Typed engine and cost configuration with the defaults SIM.md names.

Parsing from JSON (with error paths) lives in `sim.workload`; this module only holds the
dataclasses, their defaults and the names of the pluggable parts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048
DEFAULT_MAX_NUM_SEQS = 256
DEFAULT_BLOCK_SIZE = 16
DEFAULT_NUM_BLOCKS = 10000
DEFAULT_MAX_MODEL_LEN = 4096

POLICIES = ("vllm", "static", "prefill_first", "no_kv_cache", "disagg")
KV_ALLOCATIONS = ("paged", "reserve_max", "reserve_max_model_len")
PREEMPTION_MODES = ("recompute", "none")
COST_KINDS = ("unit", "linear", "roofline", "calibrated")
DRAFT_KINDS = ("none", "model")
TIME_UNITS = {"unit": "step", "linear": "ms", "roofline": "ms", "calibrated": "ms"}

# Linear cost model defaults, in milliseconds: roughly Llama-3-8B on one H100 (5 ms of
# fixed work per step, 0.04 ms per scheduled token, 0.0001 ms per context token read).
DEFAULT_LINEAR_C0 = 5.0
DEFAULT_LINEAR_C_TOK = 0.04
DEFAULT_LINEAR_C_KV = 0.0001

# Roofline defaults: achievable fraction of peak FLOP/s, fixed per-step overhead (ms). The
# calibrated model takes its own fitted values instead (sim/data/calibration/parameters.json)
# unless the workload gives `mfu` or `overhead` itself.
DEFAULT_ROOFLINE_MFU = 0.5
DEFAULT_ROOFLINE_OVERHEAD_MS = 0.0
DEFAULT_ROOFLINE_MODEL = "llama-3-8b"
DEFAULT_ROOFLINE_GPU = "h100-sxm"


KV_DTYPE_BYTES = {"bf16": 2, "fp8": 1}
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9


@dataclass(frozen=True)
class CapacityConfig:
    """Where num_blocks comes from: a model on `tp` GPUs with KV stored at `kv_dtype`."""

    model: str
    gpu: str
    tp: int = 1
    kv_dtype: str = "bf16"
    gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION
    reserve_bytes: int = 0


@dataclass(frozen=True)
class TransferConfig:
    """Moving a request's KV from a prefill to a decode instance: `latency` (s) plus prompt
    bytes over `bandwidth` (bytes/s) with a millisecond cost model, or `steps` with `unit`."""

    latency: float = 0.0
    bandwidth: float = 0.0
    steps: float | None = None


@dataclass(frozen=True)
class EngineConfig:
    """The scheduler and KV-cache knobs (vLLM names where vLLM has them)."""

    policy: str = "vllm"
    max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS
    max_num_seqs: int = DEFAULT_MAX_NUM_SEQS
    block_size: int = DEFAULT_BLOCK_SIZE
    num_blocks: int = DEFAULT_NUM_BLOCKS
    max_model_len: int = DEFAULT_MAX_MODEL_LEN
    enable_chunked_prefill: bool = True
    enable_prefix_caching: bool = False
    long_prefill_token_threshold: int = 0
    # Extensions for the "trouble" panels (not vLLM options).
    kv_alloc: str = "paged"
    preemption: str = "recompute"
    # SIM-specdecode.md: draft tokens per decoding request (0 = off).
    num_speculative_tokens: int = 0
    # SIM-FIELD.md 2: num_blocks derived from model x GPU x KV dtype (see `sim.capacity`).
    capacity: CapacityConfig | None = None
    # SIM-FIELD.md 4: identical instances (policy vllm: requests dealt round-robin; a pool of
    # policy disagg), and disagg's two pools and the KV transfer between them.
    instances: int = 1
    prefill: EngineConfig | None = None
    decode: EngineConfig | None = None
    transfer: TransferConfig | None = None

    def to_dict(self) -> dict[str, Any]:
        """The resolved configuration as JSON-ready data (fields added after SIM.md appear
        only when set, so an old workload's detailed trace stays byte-identical)."""
        out = asdict(self)
        for f in fields(self):
            if f.name in OPTIONAL_ENGINE_FIELDS and out[f.name] == f.default:
                del out[f.name]
        return out


OPTIONAL_ENGINE_FIELDS = (
    "num_speculative_tokens",
    "capacity",
    "instances",
    "prefill",
    "decode",
    "transfer",
)


@dataclass(frozen=True)
class DraftConfig:
    """What drafting costs: `none` (n-gram / prompt lookup) or a draft `model` of `params`
    parameters, run k times per step for the requests that get drafts (roofline cost only)."""

    kind: str = "none"
    params: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return (
            {"kind": self.kind, "params": self.params}
            if self.kind == "model"
            else {"kind": self.kind}
        )


@dataclass(frozen=True)
class CostConfig:
    """Which step-time model to use and its parameters.

    Units: `unit` counts steps (1.0 each); `linear`, `roofline` and `calibrated` are in
    milliseconds. `mfu` and `overhead` are None when the workload does not give them (the
    roofline then uses its defaults, the calibrated model its fitted values).
    """

    kind: str = "unit"
    c0: float = DEFAULT_LINEAR_C0
    c_tok: float = DEFAULT_LINEAR_C_TOK
    c_kv: float = DEFAULT_LINEAR_C_KV
    model: str = DEFAULT_ROOFLINE_MODEL
    gpu: str = DEFAULT_ROOFLINE_GPU
    mfu: float | None = None
    overhead: float | None = None
    draft: DraftConfig | None = None
    # SIM-FIELD.md 2-3: KV read at this width (None = the model's own), tensor parallel degree.
    kv_dtype: str | None = None
    tp: int = 1
    # Calibrated model only: which link the tp all-reduces cross (None: the GPU's NVLink).
    link: str | None = None

    def resolved_mfu(self) -> float:
        """The roofline's fraction of peak FLOP/s (its default when not given)."""
        return DEFAULT_ROOFLINE_MFU if self.mfu is None else self.mfu

    def resolved_overhead(self) -> float:
        """The roofline's fixed per-step cost in ms (its default when not given)."""
        return DEFAULT_ROOFLINE_OVERHEAD_MS if self.overhead is None else self.overhead

    def to_dict(self) -> dict[str, Any]:
        """Only the fields that matter for this kind."""
        keys = {
            "unit": (),
            "linear": ("c0", "c_tok", "c_kv"),
            "roofline": ("model", "gpu"),
            "calibrated": ("model", "gpu"),
        }[self.kind]
        out: dict[str, Any] = {"kind": self.kind, "time_unit": TIME_UNITS[self.kind]}
        out.update({k: getattr(self, k) for k in keys})
        if self.kind == "roofline":
            out["mfu"], out["overhead"] = self.resolved_mfu(), self.resolved_overhead()
        if self.kind == "calibrated":
            out.update({k: getattr(self, k) for k in ("mfu", "overhead", "link")
                        if getattr(self, k) is not None})
        if self.kind in ("roofline", "calibrated") and self.kv_dtype is not None:
            out["kv_dtype"] = self.kv_dtype
        if self.kind in ("roofline", "calibrated") and self.tp != 1:
            out["tp"] = self.tp
        if self.draft is not None:
            out["draft"] = self.draft.to_dict()
        return out


@dataclass(frozen=True)
class SLO:
    """Service-level objectives for goodput (same units as the cost model); None = no limit."""

    ttft: float | None = None
    tpot: float | None = None
    e2el: float | None = None


@dataclass(frozen=True)
class RequestSpec:
    """One request as the workload describes it (immutable input)."""

    id: str
    arrival: float
    prompt_len: int
    max_tokens: int
    prompt_ids: tuple[int, ...] | None = None
    accept: tuple[int, ...] | None = None  # accepted drafts per verify step, cycling
    # Parallel sampling (SIM-FIELD.md 7): children `0_ID` .. share the parent's prompt.
    parent: str | None = None
    prompt_owner: str | None = None  # whose unshared prompt this is (None: its own)


@dataclass(frozen=True)
class Workload:
    """A validated workload: engine, cost model, requests and optional SLOs / metadata."""

    engine: EngineConfig = field(default_factory=EngineConfig)
    cost: CostConfig = field(default_factory=CostConfig)
    requests: tuple[RequestSpec, ...] = ()
    slo: SLO | None = None
    scenario: dict[str, Any] | None = None
    # SIM-FIELD.md 6: how clients read the output (None: not said; no perceived_wait).
    streaming: bool | None = None
