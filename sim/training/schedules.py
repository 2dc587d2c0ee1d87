"""Per-rank action orders of the three pipeline schedules, as `torch.distributed.pipelining`
runs them (torch 2.13; SIM-TRAINING.md "Pipeline order, exactly").

An action is ``(kind, stage, microbatch)`` with kind ``"F"`` (forward) or ``"B"`` (full
backward). Stage ``s`` lives on rank ``s % pp`` (torch's "loop" stage-to-rank mapping), so with
``v`` virtual stages a rank holds stages ``rank, rank + pp, ..., rank + (v-1)·pp``.

- GPipe: ``ScheduleGPipe._step_microbatches`` runs every forward, then every backward, both in
  micro-batch order.
- 1F1B: ``Schedule1F1B._step_microbatches``: ``min(m, pp - rank)`` warm-up forwards, then
  backward/forward pairs, then the remaining backwards. (Its display IR
  ``_get_pipeline_order`` differs: it starts the last rank's steady state at micro-batch 1.)
- Interleaved 1F1B: ``ScheduleInterleaved1F1B._calculate_single_rank_operations`` without its
  idle (None) slots: ``(v-1)·per_round + 2·(pp-1-rank)`` warm-up forwards (capped at ``m·v``),
  then forward/backward pairs, then backwards; the local stage of the k-th forward is
  ``(k // per_round) % v``, of the k-th steady/cool-down backward ``v-1 - (k // per_round) % v``.
  With ``v = 1`` it is NOT the same order as 1F1B: it warms up with ``2·(pp-1-rank)`` forwards.
"""

from __future__ import annotations

from collections.abc import Callable

from sim.errors import WorkloadError

Action = tuple[str, int, int]
SCHEDULES = ("gpipe", "1f1b", "interleaved_1f1b")


def check_schedule(schedule: str, pp: int, m: int, v: int) -> None:
    """Refuse what torch refuses (and a virtual-stage count the schedule has no use for)."""
    if schedule != "interleaved_1f1b" and v != 1:
        raise WorkloadError(
            "parallel.virtual_stages",
            f"{schedule} runs one stage per rank; use schedule interleaved_1f1b for {v} stages",
        )
    if schedule == "1f1b" and m < pp:
        raise WorkloadError(
            "batch",
            f"1F1B needs at least pp = {pp} micro-batches per step, got {m} "
            "(raise global_batch or lower micro_batch; torch's Schedule1F1B refuses it too)",
        )
    if schedule == "interleaved_1f1b":
        rounds = max(1, m // pp)
        if m % rounds:
            raise WorkloadError(
                "batch",
                f"interleaved 1F1B needs the {m} micro-batches to be a multiple of the "
                f"{rounds} rounds (max(1, m // pp)), as torch's ScheduleInterleaved1F1B does",
            )


def gpipe_order(rank: int, m: int) -> list[Action]:
    """Fill, then drain: F 0..m-1, then B 0..m-1 (both in micro-batch order, as torch)."""
    return [("F", rank, i) for i in range(m)] + [("B", rank, i) for i in range(m)]


def one_f_one_b_order(rank: int, pp: int, m: int) -> list[Action]:
    """The calls `Schedule1F1B._step_microbatches` makes on the stage of `rank`."""
    warmup = min(m, pp - rank)
    order: list[Action] = [("F", rank, i) for i in range(warmup)]
    fwd, bwd = warmup, 0
    while True:
        order.append(("B", rank, bwd))
        bwd += 1
        if fwd == m:
            break
        order.append(("F", rank, fwd))
        fwd += 1
    order.extend(("B", rank, i) for i in range(bwd, m))
    return order


def interleaved_order(rank: int, pp: int, m: int, v: int) -> list[Action]:
    """`ScheduleInterleaved1F1B._calculate_single_rank_operations(rank)` without idle slots."""
    rounds = max(1, m // pp)
    per_round = m // rounds
    warmup = min((v - 1) * per_round + 2 * (pp - 1 - rank), m * v)
    total = m * v
    steady = total - warmup

    def fwd_stage(op: int) -> int:
        return ((op // per_round) % v) * pp + rank

    def bwd_stage(op: int) -> int:
        return (v - 1 - ((op - warmup) // per_round) % v) * pp + rank

    next_fwd: dict[int, int] = {}
    next_bwd: dict[int, int] = {}

    def take(counters: dict[int, int], stage: int) -> int:
        index = counters.get(stage, 0)
        counters[stage] = index + 1
        return index

    order: list[Action] = []
    for op in range(warmup + steady + warmup):  # warm-up, steady (F+B), cool-down
        if op < warmup + steady:
            stage = fwd_stage(op)
            order.append(("F", stage, take(next_fwd, stage)))
        if op >= warmup:
            stage = bwd_stage(op)
            order.append(("B", stage, take(next_bwd, stage)))
    return order


def rank_orders(schedule: str, pp: int, m: int, v: int) -> list[list[Action]]:
    """Every pipeline rank's action order (index = rank)."""
    check_schedule(schedule, pp, m, v)
    build: Callable[[int], list[Action]]
    if schedule == "gpipe":
        build = lambda rank: gpipe_order(rank, m)  # noqa: E731
    elif schedule == "1f1b":
        build = lambda rank: one_f_one_b_order(rank, pp, m)  # noqa: E731
    else:
        build = lambda rank: interleaved_order(rank, pp, m, v)  # noqa: E731
    return [build(rank) for rank in range(pp)]
