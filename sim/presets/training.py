"""The training field's page scenarios: each a pair of `sim train` workloads, "without" and
"with" one technique, on ONE cast — Llama-3-8B, sequences of 2,048 tokens, H100 SXM GPUs of
80 GB, no activation recomputation unless the scenario is about it. 3D parallelism alone runs
Llama-3-70B (64 GPUs, sequences of 4,096 tokens): an 8B model needs no pipeline across nodes.

Two kinds of run. Comics (the pipeline schedules) use the unit cost (a micro-batch's forward
takes 1, its backward 2) and 4 GPUs, small enough to draw every action. The others use the
roofline cost on real numbers (memory in bytes, time in seconds). A scenario's `build(variant,
knobs)` makes its workload, so a knob a page sets (`TrainingKnob`, ranges checked as serving's
are) rebuilds the variant consistently (e.g. more micro-batches = a larger global batch).

`run_scenario` returns the `sim train` output with the scenario's id, variant and knobs, and
`pair_span` / `pair_step`: the longer span and step time of the two variants under the same
knobs, so both panels of a card draw time at one scale. `scaling` runs one workload per cluster
size and adds them as `points` (and the other variant's as `other_points`, drawn pale beside
them). The engine never imports this module.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sim.presets.knobs import Knob, KnobError
from sim.training.run import run_training

VARIANTS = ("without", "with")
MODEL = "llama-3-8b"
GPU = "h100-sxm"
SEQ_LEN = 2048
UNIT_COST = {"kind": "unit", "forward": 1, "backward": 2}
ROOFLINE = {"kind": "roofline", "efficiency": 0.5}
SCALING_NODES = (1, 2, 4, 8, 16)  # 8 .. 128 GPUs, 8 a node
SCALING_FIXED_BATCH = 128  # sequences per step when the cluster grows under a fixed batch
SCALING_PER_GPU = 16  # sequences per GPU per step when the batch grows with the cluster

Workload = dict[str, Any]
Build = Callable[[str, Mapping[str, float]], Workload]


@dataclass(frozen=True)
class TrainingKnob(Knob):
    """A knob of a training scenario: its range (`Knob.problem`), the variants it changes and
    its value in each preset variant; the scenario's `build` reads it by id."""

    presets: tuple[float, float] = (0.0, 0.0)  # (without, with)

    def preset_for(self, variant: str) -> float:
        return self.presets[VARIANTS.index(variant)]


@dataclass(frozen=True)
class TrainingScenario:
    """One page scenario: a technique without and with it, as `sim train` workloads."""

    id: str
    title: str
    description: str
    build: Build
    knobs: tuple[TrainingKnob, ...] = ()
    comic: bool = False  # unit cost: small enough to draw every action
    scaling: bool = False  # one run per cluster size (`points`)

    def knob(self, knob_id: str) -> TrainingKnob | None:
        return next((k for k in self.knobs if k.id == knob_id), None)

    def settings(self, variant: str, values: Mapping[str, float]) -> dict[str, float]:
        """Every knob's value for `variant`: the preset's, unless set (a bad one: KnobError)."""
        out: dict[str, float] = {}
        for name, value in values.items():
            knob = self.knob(name)
            if knob is None:
                known = ", ".join(k.id for k in self.knobs) or "none"
                raise KnobError(f"scenario {self.id!r} has no knob {name!r} (its knobs: {known})")
            problem = knob.problem(value)
            if problem is not None:
                raise KnobError(f"scenario {self.id!r}: {problem}")
        for knob in self.knobs:
            given = values.get(knob.id)
            out[knob.id] = given if given is not None and variant in knob.variants else (
                knob.preset_for(variant))
        return out

    def workload(self, variant: str, values: Mapping[str, float] | None = None) -> Workload:
        """The variant's workload with `values` set (each a declared knob in its range)."""
        if variant not in VARIANTS:
            raise KnobError(f"scenario {self.id!r} has no variant {variant!r}")
        workload = self.build(variant, self.settings(variant, values or {}))
        workload["scenario"] = {"id": self.id, "title": self.title}
        return workload


def _workload(
    *,
    gpus_per_node: int,
    nodes: int = 1,
    parallel: Mapping[str, Any],
    global_batch: int,
    micro_batch: int = 1,
    seq_len: int = SEQ_LEN,
    recompute: str = "none",
    cost: Mapping[str, Any] = ROOFLINE,
    model: str = MODEL,
) -> Workload:
    return {
        "model": model,
        "hardware": {"gpu": GPU, "gpus_per_node": gpus_per_node, "nodes": nodes},
        "parallel": dict(parallel),
        "batch": {"global_batch": global_batch, "micro_batch": micro_batch, "seq_len": seq_len},
        "recompute": recompute,
        "cost": copy.deepcopy(dict(cost)),
    }


def _comic(schedule: str, pp: int, m: int, *, v: int = 1, micro_batch: int = 1) -> Workload:
    """`pp` GPUs in a pipeline running `m` micro-batches of `micro_batch` sequences; a
    micro-batch's forward takes `micro_batch` time units and its backward twice that."""
    parallel = {"pp": pp, "schedule": schedule, "virtual_stages": v}
    cost = {"kind": "unit", "forward": micro_batch, "backward": 2 * micro_batch}
    return _workload(gpus_per_node=pp, parallel=parallel, global_batch=m * micro_batch,
                     micro_batch=micro_batch, cost=cost)


def _int(values: Mapping[str, float], name: str) -> int:
    return int(values[name])


def _bubble(variant: str, k: Mapping[str, float]) -> Workload:
    m, pp = _int(k, "microbatches"), _int(k, "stages")
    if variant == "with":  # the batch split into m micro-batches of one sequence
        return _comic("gpipe", pp, m)
    return _comic("gpipe", pp, 1, micro_batch=m)  # the same sequences as ONE micro-batch


def _schedules(variant: str, k: Mapping[str, float]) -> Workload:
    schedule = "1f1b" if variant == "with" else "gpipe"
    return _comic(schedule, _int(k, "stages"), _int(k, "microbatches"))


def _interleaving(variant: str, k: Mapping[str, float]) -> Workload:
    if variant == "without":
        return _comic("1f1b", _int(k, "stages"), _int(k, "microbatches"))
    return _comic("interleaved_1f1b", _int(k, "stages"), _int(k, "microbatches"),
                  v=_int(k, "virtual_stages"))


def data_parallel(
    dp: int, zero: int, *, recompute: str = "none", micro_batch: int = 1, m: int = 4,
    gpus_per_node: int = 8, overlap: bool = True,
) -> Workload:
    """Llama-3-8B data-parallel over `dp` GPUs (`gpus_per_node` a node) with ZeRO `zero`, `m`
    micro-batches of `micro_batch` sequences per GPU a step, roofline cost."""
    cost = {**ROOFLINE, "overlap": overlap}
    return _workload(gpus_per_node=gpus_per_node, nodes=dp // gpus_per_node,
                     parallel={"dp": dp, "zero": zero}, global_batch=dp * micro_batch * m,
                     micro_batch=micro_batch, recompute=recompute, cost=cost)


def _zero(variant: str, k: Mapping[str, float]) -> Workload:
    gpus = _int(k, "gpus")
    return data_parallel(gpus, _int(k, "zero") if variant == "with" else 0,
                         gpus_per_node=gpus)


def _recompute(variant: str, k: Mapping[str, float]) -> Workload:
    mode = "full" if variant == "with" else "none"
    return data_parallel(8, 1, recompute=mode, micro_batch=_int(k, "micro_batch"))


def _tensor(variant: str, k: Mapping[str, float]) -> Workload:
    tp = _int(k, "tp") if variant == "with" else 1
    return _workload(gpus_per_node=tp, parallel={"tp": tp, "sequence_parallel": tp > 1},
                     global_batch=4)


def split_layers(tp: int) -> Workload:
    """The recompute scenario's 8 H100s and 64 sequences a step (micro-batches of 2, ZeRO-1)
    with every layer split `tp` ways (sequence parallel, nothing recomputed) and 8 / tp
    data-parallel copies, each running more micro-batches."""
    return _workload(gpus_per_node=8, parallel={"dp": 8 // tp, "tp": tp, "zero": 1,
                                                "sequence_parallel": True},
                     global_batch=64, micro_batch=2, cost={**ROOFLINE, "overlap": True})


def _tensor_recompute(variant: str, k: Mapping[str, float]) -> Workload:
    if variant == "without":
        return data_parallel(8, 1, recompute="full", micro_batch=2)
    return split_layers(_int(k, "tp"))


def three_d(tp: int, pp: int) -> Workload:
    """Llama-3-70B on 64 H100s in 8 nodes, 4 data-parallel copies with ZeRO-1, selective
    recomputation, 64 sequences of 4,096 tokens a step, each layer split `tp` ways and the
    layers cut into `pp` stages (1F1B)."""
    return _workload(gpus_per_node=8, nodes=8,
                     parallel={"dp": 64 // (tp * pp), "tp": tp, "pp": pp, "zero": 1,
                               "schedule": "1f1b", "sequence_parallel": True},
                     global_batch=64, seq_len=4096, recompute="selective",
                     cost={**ROOFLINE, "overlap": True}, model="llama-3-70b")


def _three_d(variant: str, k: Mapping[str, float]) -> Workload:
    return three_d(8, 2) if variant == "with" else three_d(16, 1)


def _grad_sync(variant: str, k: Mapping[str, float]) -> Workload:
    return data_parallel(8, 1, m=_int(k, "microbatches"), gpus_per_node=4,
                          overlap=variant == "with")


def _accumulate(variant: str, k: Mapping[str, float]) -> Workload:
    # the same 8 sequences per GPU a step: one micro-batch of 8, or 8 accumulated micro-batches
    per_gpu = _int(k, "sequences")
    if variant == "with":
        return data_parallel(16, 1, m=per_gpu, micro_batch=1)
    return data_parallel(16, 1, m=1, micro_batch=per_gpu)


def _scaling_point(variant: str, nodes: int) -> Workload:
    dp = 8 * nodes
    per_gpu = SCALING_FIXED_BATCH // dp if variant == "without" else SCALING_PER_GPU
    return data_parallel(dp, 1, m=per_gpu)


def _scaling(variant: str, k: Mapping[str, float]) -> Workload:
    return _scaling_point(variant, SCALING_NODES[-1])


def _knob(
    kid: str, meaning: str, unit: str, low: float, high: float, presets: tuple[float, float],
    variants: tuple[str, ...] = VARIANTS,
) -> TrainingKnob:
    return TrainingKnob(kid, meaning, unit, low, high, kid, variants=variants, presets=presets)


def _stages(preset: int = 4) -> TrainingKnob:
    return _knob("stages", "GPUs in the pipeline, one stage each (pp); must divide the 32 layers",
                 "GPUs", 2, 4, (preset, preset))


def _microbatches(low: int, high: int, preset: int) -> TrainingKnob:
    return _knob("microbatches", "micro-batches per step (one sequence each)", "micro-batches",
                 low, high, (preset, preset))


_PIPELINE_NOTE = ("Unit cost: a micro-batch's forward (F) takes 1 time unit on a GPU, its "
                  "backward (B) 2; GPU k holds layers 8k+1..8k+8 of Llama-3-8B's 32.")
SCENARIOS: dict[str, TrainingScenario] = {
    s.id: s
    for s in (
        TrainingScenario(
            "pipeline_bubble",
            "Pipeline bubble: one batch vs micro-batches",
            "4 GPUs in a pipeline, GPipe schedule, 4 sequences a step. Without: the sequences go "
            "through as ONE batch, so one GPU works while 3 wait (3/4 of the time idle). With: "
            "split into 4 micro-batches, the GPUs overlap and the idle share falls to "
            "(p-1)/(m+p-1) = 3/7. " + _PIPELINE_NOTE,
            _bubble,
            # the knob is the step's sequences: `{microbatches}` reads 1 without (one batch)
            (_knob("microbatches", "sequences per step: without, they go through as one batch; "
                   "with, as that many micro-batches of one sequence", "sequences", 2, 8, (4, 4)),
             _stages()), comic=True,
        ),
        TrainingScenario(
            "one_f_one_b",
            "1F1B vs GPipe: the same bubble, fewer micro-batches held",
            "4 GPUs, 8 micro-batches. GPipe runs every forward, then every backward: GPU 0 holds "
            "the activations of all 8 micro-batches at once (over its 80 GB). 1F1B starts each "
            "backward as soon as it can: GPU k holds at most 4 - k; the idle share is the same "
            "3/11. " + _PIPELINE_NOTE,
            _schedules, (_microbatches(4, 16, 8), _stages()), comic=True,
        ),
        TrainingScenario(
            "interleaving",
            "Interleaved 1F1B: more, smaller stages per GPU",
            "4 GPUs, 8 micro-batches. 1F1B gives each GPU one stage of 8 layers; interleaved 1F1B "
            "(Megatron-LM) gives each GPU 2 stages of 4 layers (GPU k holds stages k and k+4), "
            "so the pipeline fills in half the time: the idle share falls from 3/11 to 3/19, at "
            "the cost of more sends between GPUs and more activations held early. Unit cost: a "
            "micro-batch's forward takes 1 time unit on a GPU (split over its stages), its "
            "backward 2.",
            _interleaving,
            (_microbatches(4, 16, 8), _stages(),
             _knob("virtual_stages", "stages per GPU (v); pp x v must divide the 32 layers",
                   "stages", 2, 4, (1, 2), variants=("with",))),
            comic=True,
        ),
        TrainingScenario(
            "zero_sharding",
            "Sharded model states (ZeRO) vs plain data parallelism",
            "8 H100s in one node train Llama-3-8B data-parallel, 4 sequences each per step. "
            "Plain DP keeps a full copy of the weights, gradients and Adam states on every GPU "
            "(20 bytes a parameter, 160 GB): it does not fit. ZeRO-1 shards the optimizer states "
            "8 ways, ZeRO-2 the gradients too, ZeRO-3 the weights too (DeepSpeed's accounting). "
            "Fewer GPUs (knob gpus) share the states fewer ways: on 4, ZeRO-1 and ZeRO-2 no "
            "longer fit and ZeRO-3 does.",
            _zero,
            (_knob("zero", "ZeRO stage: 1 shards the optimizer states, 2 also the gradients, 3 "
                   "also the weights", "stage", 1, 3, (0, 1), variants=("with",)),
             # fewer GPUs share the states fewer ways: the run where a lower stage no longer
             # fits and a higher one does (a played model's FSDP card had none, reader hf4)
             _knob("gpus", "data-parallel GPUs in the node, each sharing the states", "GPUs",
                   2, 8, (8, 8))),
        ),
        TrainingScenario(
            "recompute",
            "Activation recomputation: none vs full",
            "8 H100s, data parallel with ZeRO-1, micro-batches of 2 sequences. Without "
            "recomputation every layer keeps its activations for the backward (Korthikanti et al. "
            "2022): they do not fit. Full recomputation keeps only each layer's input and runs "
            "the forward again during the backward: memory falls, the step takes about a third "
            "longer.",
            _recompute,
            (_knob("micro_batch", "sequences per micro-batch", "sequences", 1, 4, (2, 2)),),
        ),
        TrainingScenario(
            "tensor_split",
            "Tensor parallelism: one GPU vs the model split across GPUs",
            "Llama-3-8B needs 20 bytes a parameter to train (160 GB): one 80 GB GPU cannot hold "
            "it. Tensor parallelism (Megatron-LM, with sequence parallelism) splits every layer "
            "across 4 GPUs of one node: each holds a quarter, and they all-reduce activations "
            "over NVLink 4 times per layer. The without variant is the lone GPU any "
            "parallelism starts from (one GPU, 4 sequences a step, all of the model).",
            _tensor,
            (_knob("tp", "GPUs each layer is split across (tp); must divide 32 heads", "GPUs",
                   2, 8, (1, 4), variants=("with",)),),
        ),
        TrainingScenario(
            "tensor_recompute",
            "Tensor parallelism instead of recomputation",
            "The recompute scenario's 8 H100s in one node, ZeRO-1, micro-batches of 2 sequences, "
            "64 sequences a step. Without: 8 data-parallel copies with full recomputation, which "
            "fits but runs every forward twice. With: each layer split 2 ways (tensor and "
            "sequence parallelism, Korthikanti et al. 2022) and 4 copies: each GPU holds half of "
            "every layer's weights and activations, so it fits with nothing recomputed; the "
            "price is 4 all-reduces per layer over NVLink, on the critical path.",
            _tensor_recompute,
            (_knob("tp", "GPUs each layer is split across (tp); must divide 8 GPUs and 32 heads",
                   "GPUs", 2, 8, (1, 2), variants=("with",)),),
        ),
        TrainingScenario(
            "three_d",
            "3D parallelism: tensor parallelism inside a node, pipeline across nodes",
            "Llama-3-70B (80 layers) on 64 H100s in 8 nodes of 8, 4 data-parallel copies with "
            "ZeRO-1, selective recomputation, 64 sequences of 4,096 tokens a step. Without: each "
            "layer split 16 ways, so every copy spans two nodes and each layer's all-reduces "
            "cross the network. With (3D): each layer split 8 ways inside one node over NVLink, "
            "the 80 layers cut into 2 pipeline stages, one node each; only the activations "
            "between stages and the gradient all-reduce cross the network.",
            _three_d,
        ),
        TrainingScenario(
            "grad_sync",
            "Gradient all-reduce: exposed vs overlapped",
            "8 H100s in 2 nodes of 4, data parallel with ZeRO-1, 4 micro-batches a step "
            "(gradients accumulated over them). Once per step the 16 GB of bf16 gradients are "
            "all-reduced around a ring that crosses the nodes' 50 GB/s network links. Without "
            "overlap the GPUs wait for it after the last backward; with overlap it runs during "
            "that backward and only the rest shows.",
            _grad_sync, (_microbatches(1, 16, 4),),
        ),
        TrainingScenario(
            "accumulation",
            "Gradient accumulation: one big micro-batch vs many small ones",
            "16 H100s in 2 nodes, data parallel with ZeRO-1, 8 sequences per GPU a step (a global "
            "batch of 128). Without: the 8 go through as ONE micro-batch, whose activations are "
            "all held at once. With: 8 micro-batches of one sequence run one after another, their "
            "gradients are added up and all-reduced once, at the end: the same step, one "
            "sequence's activations at a time; the all-reduce can hide behind only the last "
            "micro-batch's backward.",
            _accumulate,
            (_knob("sequences", "sequences per GPU a step", "sequences", 2, 16, (8, 8)),),
        ),
        TrainingScenario(
            "scaling",
            "Scaling out: MFU as the cluster grows",
            "Llama-3-8B, data parallel with ZeRO-1 and overlapped all-reduce, on 8 to 128 H100s "
            "(8 a node). Without: a fixed batch of 128 sequences a step is split over more and "
            "more GPUs, so each computes less while the all-reduce does not shrink. With: the "
            "batch grows with the cluster (16 sequences per GPU), so MFU holds.",
            _scaling, (), scaling=True,
        ),
    )
}


def scenario(sid: str) -> TrainingScenario:
    if sid not in SCENARIOS:
        raise KnobError(f"unknown training scenario {sid!r} (known: {', '.join(SCENARIOS)})")
    return SCENARIOS[sid]


def scenario_workloads(
    sid: str, variant: str, knobs: Mapping[str, float] | None = None
) -> list[Workload]:
    """Every `sim train` workload the run needs: one, or one per cluster size (scaling)."""
    chosen = scenario(sid)
    if chosen.scaling:
        chosen.settings(variant, knobs or {})  # refuses a knob it does not have
        return [
            {**_scaling_point(variant, n), "scenario": {"id": sid, "title": chosen.title}}
            for n in SCALING_NODES
        ]
    return [chosen.workload(variant, knobs)]


def _point(out: Mapping[str, Any]) -> dict[str, Any]:
    hw, batch = out["workload"]["hardware"], out["workload"]["batch"]
    return {"gpus": hw["gpus"], "nodes": hw["nodes"], "global_batch": batch["global_batch"],
            "microbatches": batch["microbatches"], "step": out["step"],
            "memory_peak": out["memory_peak"]}


def run_scenario(
    sid: str, variant: str, knobs: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """The `sim train` output of the scenario's variant (knobs set), tagged with the scenario;
    scaling: the largest cluster's output with every cluster size's figures in `points`."""
    chosen = scenario(sid)
    runs = [run_training(w) for w in scenario_workloads(sid, variant, knobs)]
    out = runs[-1]
    out["scenario"] = {"id": sid, "title": chosen.title, "variant": variant,
                       "knobs": {k: float(v) for k, v in sorted((knobs or {}).items())}}
    other = "with" if variant == "without" else "without"
    if chosen.scaling:
        out["points"] = [_point(r) for r in runs]
        out["other_points"] = [_point(run_training(w))
                               for w in scenario_workloads(sid, other, knobs)]
        return out
    twin = run_training(chosen.workload(other, knobs))
    out["pair_span"] = max(out["span"], twin["span"])
    out["pair_step"] = max(out["step"]["step_time"], twin["step"]["step_time"])
    out["pair_peak"] = max(out["memory_peak"]["total"], twin["memory_peak"]["total"])
    return out
