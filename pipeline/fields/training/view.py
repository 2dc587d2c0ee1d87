"""The typed view of a `sim train` output (SIM-TRAINING.md "Contract") that the training
field's scenes, walkthrough and placeholders read: the workload's shape, every pipeline rank's
timeline, memory per rank, the collectives, the step's times and, for a scaling run, its points.

Built once from the JSON (`TrainingView.from_json`); a scene never touches the raw dict, so a
renamed key fails here, in one place. Ranks are pipeline ranks (every GPU of a rank, across tp
and dp, holds and does the same); micro-batches are numbered as the simulator does, from 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Json = Any
GB = 1e9


@dataclass(frozen=True)
class Action:
    """One forward (F) or backward (B) of one micro-batch on one stage, as the timeline ran it."""

    kind: str
    stage: int
    microbatch: int
    start: float
    end: float


@dataclass(frozen=True)
class RankMemory:
    """One pipeline rank's GPU memory at its fullest (bytes)."""

    params: float
    grads: float
    optimizer: float
    activations: float
    buffers: float
    total: float
    hbm: float
    fits: bool
    held: int  # the most (stage, micro-batch) activations held at once
    fp32_grads: float = 0.0  # the fp32 gradient shard, counted in `optimizer` (see _memory)

    @property
    def states(self) -> float:
        return self.params + self.grads + self.optimizer + self.buffers


@dataclass(frozen=True)
class Collective:
    """One kind of collective of rank 0's GPUs: its op, group, link, bytes and time."""

    kind: str
    op: str
    group: int
    link: str
    bytes: float
    time: float
    per_step: int


@dataclass(frozen=True)
class StepTimes:
    """One step's time on the critical rank: compute, each kind of communication (all of it
    and the part not hidden behind compute), the pipeline bubble, tokens/s and MFU."""

    compute: float
    comm: Mapping[str, float]
    exposed: Mapping[str, float]
    exposed_comm: float
    bubble: float
    step_time: float
    tokens: int
    tokens_per_s: float
    mfu: float | None
    time_unit: str  # "unit" (the unit cost) or "s"

    @property
    def comm_total(self) -> float:
        return sum(self.comm.values())


@dataclass(frozen=True)
class ScalePoint:
    """One cluster size of a scaling run."""

    gpus: int
    nodes: int
    global_batch: int
    microbatches: int
    step: StepTimes
    peak: float


@dataclass(frozen=True)
class TrainingView:
    """Everything a training scene may read of one run."""

    scenario: str
    variant: str
    title: str
    model: str
    gpu: str
    gpus: int
    gpus_per_node: int
    nodes: int
    dp: int
    tp: int
    pp: int
    virtual_stages: int
    schedule: str
    zero: int
    recompute: str
    microbatches: int
    micro_batch: int
    seq_len: int
    global_batch: int
    cost_kind: str
    hbm: float
    timeline: tuple[tuple[Action, ...], ...]
    span: float
    pair_span: float  # the longer span of the card's two variants (one time scale for both)
    pair_step: float  # the longer step time of the two
    pair_peak: float  # the fuller GPU of the two (bytes): one memory scale for both panels
    bubble_fraction: float
    memory: tuple[RankMemory, ...]
    collectives: tuple[Collective, ...]
    step: StepTimes
    links: Mapping[str, Any] = field(default_factory=dict)
    points: tuple[ScalePoint, ...] = ()
    other_points: tuple[ScalePoint, ...] = ()  # the other variant's (scaling)
    layers: int = 0  # the model's transformer layers (a pipeline GPU holds layers / pp)

    @property
    def unit_cost(self) -> bool:
        return self.cost_kind == "unit"

    @property
    def peak(self) -> RankMemory:
        """The fullest rank's memory (the first of the fullest)."""
        return max(self.memory, key=lambda m: m.total)

    def busy(self, rank: int) -> float:
        return sum(a.end - a.start for a in self.timeline[rank])

    def collective(self, kind: str) -> Collective | None:
        """The largest collective of `kind` (dp, fsdp, tp, pp) by time per step."""
        found = [c for c in self.collectives if c.kind == kind]
        return max(found, key=lambda c: c.time * c.per_step) if found else None

    @classmethod
    def from_json(cls, data: Json) -> TrainingView:
        work = data["workload"]
        hw, par, batch = work["hardware"], work["parallel"], work["batch"]
        scen = data.get("scenario") or {}
        timeline = data.get("timeline") or {}
        memory = data.get("memory") or {}
        return cls(
            scenario=str(scen.get("id", "")),
            variant=str(scen.get("variant", "")),
            title=str(scen.get("title", "")),
            model=str(work["model"]["id"]),
            gpu=str(hw["gpu"]),
            gpus=int(hw["gpus"]),
            gpus_per_node=int(hw["gpus_per_node"]),
            nodes=int(hw["nodes"]),
            dp=int(par["dp"]),
            tp=int(par["tp"]),
            pp=int(par["pp"]),
            virtual_stages=int(par["virtual_stages"]),
            schedule=str(par["schedule"]),
            zero=int(par["zero"]),
            recompute=str(work["recompute"]),
            microbatches=int(batch["microbatches"]),
            micro_batch=int(batch["micro_batch"]),
            seq_len=int(batch["seq_len"]),
            global_batch=int(batch["global_batch"]),
            cost_kind=str(work["cost"]["kind"]),
            hbm=float(hw["hbm"]),
            timeline=tuple(_actions(timeline[r]) for r in _ranks(timeline)),
            span=float(data["span"]),
            pair_span=float(data.get("pair_span") or data["span"]),
            pair_step=float(data.get("pair_step") or data["step"]["step_time"]),
            pair_peak=float(data.get("pair_peak") or data["memory_peak"]["total"]),
            bubble_fraction=float(data["bubble_fraction"]),
            memory=tuple(_memory(memory[r]) for r in _ranks(memory)),
            collectives=tuple(_collective(c) for c in data.get("collectives") or ()),
            step=_step(data["step"]),
            links=dict(data.get("links") or {}),
            points=tuple(_point(p) for p in data.get("points") or ()),
            other_points=tuple(_point(p) for p in data.get("other_points") or ()),
            layers=int(work["model"].get("layers") or 0),
        )


def _ranks(by_rank: Mapping[str, Any]) -> list[str]:
    return sorted(by_rank, key=int)


def _actions(items: Sequence[Mapping[str, Any]]) -> tuple[Action, ...]:
    return tuple(
        Action(str(a["kind"]), int(a["stage"]), int(a["microbatch"]), float(a["start"]),
               float(a["end"]))
        for a in items
    )


def _memory(m: Mapping[str, Any]) -> RankMemory:
    """A rank's memory as the pictures group it. DeepSpeed's accounting counts an fp32 copy of
    the gradients that the optimizer steps on, sharded with the optimizer states from ZeRO-1 on;
    it is drawn with the optimizer, so "gradients" are the bf16 ones a ZeRO stage names (a
    beginner saw the gradient bar shrink under ZeRO-1, which shards only optimizer states)."""
    fp32_grads = float((m.get("parts") or {}).get("grads_fp32", 0))
    return RankMemory(
        params=float(m["params"]), grads=float(m["grads"]) - fp32_grads,
        optimizer=float(m["optimizer"]) + fp32_grads,
        activations=float(m["activations"]), buffers=float(m.get("buffers", 0)),
        total=float(m["total"]), hbm=float(m["hbm"]), fits=bool(m["fits"]),
        held=int(m.get("microbatches_held", 0)), fp32_grads=fp32_grads,
    )


def _collective(c: Mapping[str, Any]) -> Collective:
    return Collective(str(c["kind"]), str(c["op"]), int(c["group"]), str(c["link"]),
                      float(c["bytes"]), float(c["time"]), int(c["per_step"]))


def _step(s: Mapping[str, Any]) -> StepTimes:
    return StepTimes(
        compute=float(s["compute"]),
        comm={k: float(v) for k, v in s["comm"].items()},
        exposed={k: float(v) for k, v in s["exposed"].items()},
        exposed_comm=float(s["exposed_comm"]),
        bubble=float(s["bubble"]),
        step_time=float(s["step_time"]),
        tokens=int(s["tokens"]),
        tokens_per_s=float(s["tokens_per_s"]),
        mfu=None if s.get("mfu") is None else float(s["mfu"]),
        time_unit=str(s["time_unit"]),
    )


def _point(p: Mapping[str, Any]) -> ScalePoint:
    return ScalePoint(int(p["gpus"]), int(p["nodes"]), int(p["global_batch"]),
                      int(p["microbatches"]), _step(p["step"]),
                      float(p["memory_peak"]["total"]))
