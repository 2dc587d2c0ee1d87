"""The training field's registry data: what each scene kind draws (`SCENE_SHOWS`), which scenes
draw each scenario (`DRAWN_BY`), what every placeholder means and its unit, and
`build_catalogue`, which fills a `Catalogue` from what only the engine knows (each scenario's
title, description and knobs from `sim.presets.training`, each placeholder's value in both preset
variants from a `sim train` run of each, the sweep's techniques and metrics).

A new scenario is one entry in `sim.presets.training.SCENARIOS` and one in `DRAWN_BY`; a new
scene kind one `SCENE_SHOWS` entry and its module under `scenes/`; a new placeholder one
`*_MEANINGS` entry and its value in `values.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from pipeline.fields.training.values import training_values
from pipeline.fields.training.view import TrainingView
from pipeline.plan.catalogue import (
    Catalogue,
    KnobEntry,
    PlaceholderEntry,
    ScenarioEntry,
    TechniqueEntry,
)

FIELD_ID = "training"
VARIANTS = ("without", "with")
UNIT_CLOCK, REAL_CLOCK = "time units", "s"

SCENE_SHOWS: dict[str, str] = {
    "pipeline": "one lane per pipeline GPU (at most 4) on one time axis: every micro-batch's "
    "forward (F) and backward (B) as numbered blocks, idle time grey; the bubble's share and "
    "the most micro-batches a GPU holds at once; the card's two panels share one time scale",
    "memory": "each pipeline GPU's memory as a stacked bar (weights, gradients, optimizer "
    "states, activations) against its 80 GB HBM line; what does not fit is drawn red dashed "
    "above the line",
    "ring": "the data-parallel GPUs (at most 8, a box per node) in a ring passing gradient "
    "chunks to their neighbours: the collective's 2(n-1) steps, its bytes, link and time",
    "step_bar": "one training step as a bar: compute, exposed communication and idle (pipeline "
    "bubble) time, the communication hidden under compute drawn beneath; tokens/s and MFU",
    "division": "who holds what and works on what: one box per data-parallel copy of the model "
    "(any number: the first 3 or 4 drawn, the rest counted; with a pipeline, one per stage, "
    "arrows between), in it each GPU that splits its "
    "layers, under a square of one layer's weights with that GPU's part hatched, then the "
    "sequences the box trains on per step and each GPU's memory (red dashed if over 80 GB); "
    "beneath, "
    "in words, the gradient all-reduce across copies, the per-layer all-reduces inside a "
    "tensor group, what ZeRO shards. Draws data, tensor and pipeline parallelism apart",
    "scaling": "MFU against the number of GPUs (8 to 128) for both settings, the panel's own "
    "inked and the other pale; needs the scaling run",
}

# Scenario id -> the scene kinds that draw it (every pair is rendered by a test): the pipeline
# lanes need a comic's every action; the ring needs a data-parallel collective in both
# variants; the scaling chart needs a scaling run's points.
DRAWN_BY: dict[str, tuple[str, ...]] = {
    "pipeline_bubble": ("pipeline", "step_bar", "memory", "division"),
    "one_f_one_b": ("pipeline", "memory", "step_bar", "division"),
    "interleaving": ("pipeline", "step_bar", "memory", "division"),
    "zero_sharding": ("memory", "ring", "step_bar", "division"),
    "recompute": ("memory", "step_bar", "division"),
    "tensor_split": ("memory", "step_bar", "division"),
    "tensor_recompute": ("step_bar", "memory", "division"),
    "three_d": ("division", "step_bar"),
    "grad_sync": ("ring", "step_bar", "division"),
    "accumulation": ("memory", "step_bar", "division"),
    "scaling": ("scaling",),
}

TIME = "{time}"
RUN_MEANINGS: dict[str, tuple[str, str]] = {
    "gpus": ("GPUs in the run", "GPUs"),
    "dp": ("data-parallel copies (dp)", "copies"),
    "tp": ("GPUs each layer is split across (tp)", "GPUs"),
    "pp": ("pipeline stages, one GPU group each (pp)", "stages"),
    "virtual_stages": ("stages each pipeline GPU holds (interleaving)", "stages"),
    "microbatches": ("micro-batches per pipeline per step (m)", "micro-batches"),
    "micro_batch": ("sequences per micro-batch", "sequences"),
    "zero": ("ZeRO stage (0 = plain data parallelism)", "stage"),
    "seq_len": ("tokens per sequence", "tokens"),
    "step_time": ("one training step", TIME),
    "compute": ("compute time of the step (the critical GPU's)", TIME),
    "idle": ("time the critical GPU idles in the step (pipeline bubble)", TIME),
    "span": ("the pipeline's span: first forward to last backward", TIME),
    "bubble_pct": ("the pipeline's idle share of the span (all GPUs)", "%"),
    "tokens_per_s": ("training tokens per second, whole cluster", "tokens/s"),
    "mfu_pct": ("model FLOPs utilisation: model FLOPs done / the GPUs' dense peak", "%"),
    "exposed_comm": ("time the critical GPU waits on communication in the step", TIME),
    "comm_ms": ("all communication of the step on the critical GPU", "ms"),
    "exposed_ms": ("communication not hidden behind compute", "ms"),
    "peak_gb": ("memory of the fullest GPU", "GB"),
    "hbm_gb": ("one GPU's HBM", "GB"),
    "over_gb": ("how far the fullest GPU is over its HBM (0: it fits)", "GB"),
    "allreduce_ms": ("one call of the ring collective the ring scene draws", "ms"),
    "allreduce_gb": ("bytes that collective moves (the whole array)", "GB"),
    "allreduce_mb": ("bytes that collective moves (the whole array)", "MB"),
    "ring_gpus": ("GPUs in that ring", "GPUs"),
    "ring_steps": ("steps around the ring: 2(n-1) for an all-reduce", "steps"),
}
# Per pipeline rank `rankR.field`: meaning (R = the rank), unit.
RANK_MEANINGS: dict[str, tuple[str, str]] = {
    "peak_gb": ("GPU R's memory at its fullest", "GB"),
    "activations_gb": ("GPU R's activations at their most", "GB"),
    "states_gb": ("GPU R's weights, gradients and optimizer states", "GB"),
    "params_gb": ("GPU R's weights (bf16)", "GB"),
    "grads_gb": ("GPU R's bf16 gradients", "GB"),
    "optimizer_gb": ("GPU R's optimizer states (fp32 master weights, Adam moments, the fp32 "
                     "gradients it steps on)", "GB"),
    "held": ("micro-batches whose activations GPU R holds at once, at most", "micro-batches"),
    "idle": ("time GPU R idles in the span", TIME),
}
# A scaling run's points `field_I` (I from 0, fewest GPUs first).
POINT_PATTERN = re.compile(r"^(?P<field>gpus|step_time|compute|tokens_per_s|mfu_pct)_(?P<i>\d+)$")
RANK_PATTERN = re.compile(r"^rank(?P<r>\d+)\.(?P<field>\w+)$")
UNDOCUMENTED = ("a number of this scenario's run", "")


def placeholder_meaning(name: str, clock: str) -> tuple[str, str]:
    """(meaning, unit) of a placeholder; the run's `clock` replaces the time unit."""
    rank = RANK_PATTERN.match(name)
    point = POINT_PATTERN.match(name)
    if rank and rank["field"] in RANK_MEANINGS:
        meaning, unit = RANK_MEANINGS[rank["field"]]
        meaning = meaning.replace("GPU R", f"pipeline GPU {rank['r']}")
    elif point:
        meaning, unit = RUN_MEANINGS[point["field"]]
        meaning = f"{meaning}, at the scaling run's point {point['i']} (fewest GPUs = 0)"
    else:
        meaning, unit = RUN_MEANINGS.get(name, UNDOCUMENTED)
    return meaning, unit.replace(TIME, clock)


def documented(name: str) -> bool:
    return placeholder_meaning(name, REAL_CLOCK) != UNDOCUMENTED


def _order(name: str) -> tuple[int, int, str]:
    rank, point = RANK_PATTERN.match(name), POINT_PATTERN.match(name)
    if rank:
        return (1, list(RANK_MEANINGS).index(rank["field"]), name)
    if point:
        return (2, int(point["i"]), name)
    order = list(RUN_MEANINGS)
    return (0, order.index(name) if name in order else len(order), name)


def placeholder_entries(
    without: dict[str, str], with_: dict[str, str], clock: str
) -> tuple[PlaceholderEntry, ...]:
    names = sorted(set(without) | set(with_), key=_order)
    return tuple(
        PlaceholderEntry(n, *placeholder_meaning(n, clock), without.get(n), with_.get(n))
        for n in names
    )


def clock_of(view: TrainingView) -> str:
    return UNIT_CLOCK if view.unit_cost else REAL_CLOCK


@cache
def build_catalogue() -> Catalogue:
    """Every training scenario and ruler technique (runs each preset variant once: cached)."""
    from pipeline.fields.base import Run
    from pipeline.fields.training.engine import run_result
    from sim.presets.training import SCENARIOS
    from sim.presets.training_sweep import METRICS, TECHNIQUES

    scenarios: dict[str, ScenarioEntry] = {}
    for sid, scen in SCENARIOS.items():
        views = {v: TrainingView.from_json(run_result(Run(sid, v, field=FIELD_ID)))
                 for v in VARIANTS}
        clock = clock_of(views["with"])
        knobs = tuple(
            KnobEntry(k.id, k.meaning, k.unit, k.low, k.high, k.integer, k.variants,
                      (k.preset_for("without"), k.preset_for("with")))
            for k in scen.knobs
        )
        values = {v: training_values(view) for v, view in views.items()}
        scenarios[sid] = ScenarioEntry(
            sid, scen.title, scen.description, DRAWN_BY.get(sid, ()), clock,
            placeholder_entries(values["without"], values["with"], clock), knobs,
        )
    techniques = tuple(TechniqueEntry(t.id, f"{t.label} (on {t.workload})") for t in TECHNIQUES)
    return Catalogue(scenarios, techniques, METRICS, scene_shows=SCENE_SHOWS, field=FIELD_ID)


@dataclass(frozen=True)
class PlaceholderGroup:
    """Placeholders that share a meaning (one field over the pipeline GPUs or the scaling
    points), as the prompt lists them."""

    label: str
    meaning: str
    unit: str
    items: tuple[PlaceholderEntry, ...]


def grouped_placeholders(entry: ScenarioEntry) -> list[PlaceholderGroup]:
    """The scenario's placeholders by meaning: each whole-run one alone, `rankR.held` once for
    all GPUs (then GPU 0's, 1's, ... values), `mfu_pct_I` once for all points."""
    groups: dict[str, list[PlaceholderEntry]] = {}
    for p in entry.placeholders:
        rank, point = RANK_PATTERN.match(p.name), POINT_PATTERN.match(p.name)
        label = (f"rankR.{rank['field']}" if rank else f"{point['field']}_I" if point
                 else p.name)
        groups.setdefault(label, []).append(p)
    out = []
    for label, items in groups.items():
        meaning, unit = items[0].meaning, items[0].unit
        if label.startswith("rankR."):
            meaning = RANK_MEANINGS[label.partition(".")[2]][0]
        elif label.endswith("_I"):
            meaning = f"{RUN_MEANINGS[label[:-2]][0]}, at point I of the scaling run"
        out.append(PlaceholderGroup(label, meaning, unit, tuple(items)))
    return out
