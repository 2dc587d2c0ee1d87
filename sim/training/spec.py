"""The typed training workload (SIM-TRAINING.md "Contract"), as `sim.training.parse` builds it."""

from __future__ import annotations

from dataclasses import dataclass

from sim.collectives import Link

RECOMPUTE = ("none", "selective", "full")
PRECISIONS = ("bf16",)
ACCOUNTING = ("deepspeed", "zero_paper")
COST_KINDS = ("unit", "roofline")


@dataclass(frozen=True)
class ModelArch:
    """A decoder-only transformer. `params` is the total Ψ (given, or counted from the shape)."""

    id: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    params: int
    gated_mlp: bool = True
    tied_embeddings: bool = False

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def layer_params(self) -> int:
        """One block: q and o (h·h each), k and v (h·kv_heads·head_dim each), the MLP (three
        h·ffn matrices when gated, two otherwise) and two norms."""
        h = self.hidden
        attention = 2 * h * h + 2 * h * self.kv_heads * self.head_dim
        mlp = (3 if self.gated_mlp else 2) * h * self.ffn
        return attention + mlp + 2 * h

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    @property
    def counted_params(self) -> int:
        """The parameters the shape accounts for (blocks, embeddings, final norm)."""
        head = 0 if self.tied_embeddings else self.embedding_params
        return self.layers * self.layer_params + self.embedding_params + head + self.hidden

    @property
    def largest_module_params(self) -> int:
        """The largest single weight (DeepSpeed's ``largest_layer_params``: the biggest module's
        own parameters): the embedding, an MLP matrix or an attention projection."""
        return max(self.embedding_params, self.hidden * self.ffn, self.hidden * self.hidden)


@dataclass(frozen=True)
class Hardware:
    """The GPU (from `sim/data/gpu-*.json`) and how many there are, in nodes."""

    gpu: str
    gpus_per_node: int
    nodes: int
    peak_flops: float
    hbm_bytes: int
    nvlink: Link
    network: Link

    @property
    def gpus(self) -> int:
        return self.gpus_per_node * self.nodes


@dataclass(frozen=True)
class Parallel:
    """Degrees of data, tensor and pipeline parallelism, the schedule and the ZeRO stage."""

    dp: int = 1
    tp: int = 1
    pp: int = 1
    virtual_stages: int = 1
    schedule: str = "1f1b"
    zero: int = 0
    sequence_parallel: bool = False

    @property
    def stages(self) -> int:
        return self.pp * self.virtual_stages


@dataclass(frozen=True)
class Batch:
    """Sequences per step (all replicas), per micro-batch, and their length in tokens."""

    global_batch: int
    micro_batch: int
    seq_len: int
    microbatches: int  # per pipeline: global_batch / (dp · micro_batch)


@dataclass(frozen=True)
class Cost:
    """`unit`: F and B take `forward` and `backward` per micro-batch and rank (split over the
    virtual stages), p2p `p2p`. `roofline`: from FLOPs at `efficiency` × the GPU's dense peak,
    communication from the links; `overlap` hides data-parallel traffic behind compute."""

    kind: str = "unit"
    forward: float = 1.0
    backward: float = 2.0
    p2p: float = 0.0
    efficiency: float = 0.5
    overlap: bool = True


@dataclass(frozen=True)
class TrainWorkload:
    """One training step to simulate."""

    model: ModelArch
    hardware: Hardware
    parallel: Parallel
    batch: Batch
    precision: str = "bf16"
    recompute: str = "none"
    cost: Cost = Cost()
    accounting: str = "deepspeed"
    scenario: dict[str, str] | None = None
