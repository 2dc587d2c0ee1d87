"""The numbers a training panel's caption may bind (`{bubble_pct}`, `{rank0.peak_gb}`,
`{step_time}`, `{mfu_pct}`, ...), read off the run's view and written as a reader checks them:
GB with one decimal, percentages with one, seconds with two below ten, time units as they are.

Whole-run names first, then per pipeline rank (`rankR.field`), then a scaling run's points
(`field_I`, I = the point's index from 0). `placeholder_meaning` (catalogue.py) documents each.
"""

from __future__ import annotations

from pipeline.fields.training.view import GB, StepTimes, TrainingView
from pipeline.numfmt import one_decimal

MAX_RANKS = 8  # per-rank placeholders for the first eight pipeline ranks: what a scene shows


def number(value: float) -> str:
    """One decimal, trailing .0 dropped (small enough to check by hand)."""
    return one_decimal(value)


def seconds(value: float) -> str:
    """Seconds: two decimals below ten (a step of 0.8 s and one of 0.82 s differ), else one."""
    if abs(value) >= 10:
        return number(value)
    text = f"{round(float(value), 2):.2f}".rstrip("0").rstrip(".")
    return text or "0"


def clock(view: TrainingView, value: float) -> str:
    """A time on the run's clock: time units under the unit cost, else seconds."""
    return number(value) if view.unit_cost else seconds(value)


def gb(nbytes: float) -> str:
    return number(nbytes / GB)


def _step_values(view: TrainingView, step: StepTimes, suffix: str = "") -> dict[str, str]:
    out = {
        f"step_time{suffix}": clock(view, step.step_time),
        f"compute{suffix}": clock(view, step.compute),
    }
    if not view.unit_cost:
        out[f"tokens_per_s{suffix}"] = str(round(step.tokens_per_s))
        if step.mfu is not None:
            out[f"mfu_pct{suffix}"] = number(100.0 * step.mfu)
    return out


def training_values(view: TrainingView) -> dict[str, str]:
    """Every placeholder value the run offers."""
    values = {
        "gpus": str(view.gpus), "dp": str(view.dp), "tp": str(view.tp), "pp": str(view.pp),
        "microbatches": str(view.microbatches), "micro_batch": str(view.micro_batch),
        "zero": str(view.zero), "seq_len": str(view.seq_len),
    }
    if view.virtual_stages > 1:
        values["virtual_stages"] = str(view.virtual_stages)
    step = view.step
    values.update(_step_values(view, step))
    values["idle"] = clock(view, step.bubble)
    if view.pp > 1:
        values["span"] = clock(view, view.span)
        values["bubble_pct"] = number(100.0 * view.bubble_fraction)
    if not view.unit_cost:
        values["exposed_comm"] = clock(view, step.exposed_comm)
        values["comm_ms"] = number(1000.0 * step.comm_total)
        values["exposed_ms"] = number(1000.0 * step.exposed_comm)
    peak = view.peak
    values["peak_gb"] = gb(peak.total)
    values["hbm_gb"] = gb(view.hbm)
    values["over_gb"] = gb(max(0.0, peak.total - view.hbm))
    ring = view.collective("dp") or view.collective("fsdp") or view.collective("tp")
    if ring is not None:
        values["allreduce_ms"] = number(1000.0 * ring.time)
        if ring.bytes >= GB / 10:
            values["allreduce_gb"] = gb(ring.bytes)
        else:  # a layer's activations (tp): megabytes
            values["allreduce_mb"] = number(ring.bytes / 1e6)
        values["ring_gpus"] = str(ring.group)
        values["ring_steps"] = str(ring_steps(ring.op, ring.group))
    for rank, mem in enumerate(view.memory[:MAX_RANKS]):
        who = f"rank{rank}"
        values[f"{who}.peak_gb"] = gb(mem.total)
        values[f"{who}.activations_gb"] = gb(mem.activations)
        values[f"{who}.states_gb"] = gb(mem.states)
        values[f"{who}.params_gb"] = gb(mem.params)
        values[f"{who}.grads_gb"] = gb(mem.grads)
        values[f"{who}.optimizer_gb"] = gb(mem.optimizer)
        values[f"{who}.held"] = str(mem.held)
        if view.pp > 1 and rank < len(view.timeline):
            values[f"{who}.idle"] = clock(view, view.span - view.busy(rank))
    for i, point in enumerate(view.points):
        values[f"gpus_{i}"] = str(point.gpus)
        values.update(_step_values(view, point.step, f"_{i}"))
    return values


def ring_steps(op: str, n: int) -> int:
    """Ring steps of a collective on `n` GPUs: 2(n-1) for all-reduce, n-1 for the halves."""
    return 2 * (n - 1) if op == "all_reduce" else n - 1
