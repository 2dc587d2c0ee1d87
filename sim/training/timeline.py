"""Run the per-rank action orders under a cost model: when each action starts and ends.

Rules (SIM-TRAINING.md): a rank runs one action at a time, in its order; F of stage k for a
micro-batch starts once F of stage k-1 for it has ended and its activations have arrived (the
p2p time, when the two stages are on different ranks); B of stage k once B of stage k+1 has
ended and the gradient has arrived; B of the last stage once its own F has ended.

Each rank waits on at most one missing input at a time, so the run is a wake-up list: a rank
advances until its next action's input is missing, parks on that input, and is woken when the
input's action ends. Linear in the number of actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sim.errors import SimulationError
from sim.training.schedules import Action


@dataclass(frozen=True)
class StageCosts:
    """Per (virtual) stage: F and B durations, and the p2p time of the input it receives (0
    for the first stage's F, the last stage's B, and neighbours on the same rank)."""

    forward: Sequence[float]
    backward: Sequence[float]
    recv_forward: Sequence[float]
    recv_backward: Sequence[float]


@dataclass(frozen=True)
class Timeline:
    """`starts[r][i]`, `ends[r][i]`: of action i of rank r's order. `p2p_wait[r]`: time rank r
    sat waiting for data in flight (the transfer part of its waits)."""

    starts: list[list[float]]
    ends: list[list[float]]
    span: float
    busy: list[float]
    p2p_wait: list[float]

    @property
    def bubble_fraction(self) -> float:
        """Idle share of the pipeline's span over all ranks: 1 - busy / (ranks · span)."""
        if self.span <= 0:
            return 0.0
        return 1.0 - sum(self.busy) / (len(self.busy) * self.span)


def run_orders(orders: list[list[Action]], m: int, costs: StageCosts) -> Timeline:
    """Start and end of every action (raises `SimulationError` if the orders deadlock)."""
    stages = len(costs.forward)
    pp = len(orders)
    end_f = [-1.0] * (stages * m)
    end_b = [-1.0] * (stages * m)
    parked: dict[int, int] = {}  # input key -> the rank waiting for it (F key >= 0, B key < 0)
    pos = [0] * pp
    free = [0.0] * pp
    starts: list[list[float]] = [[0.0] * len(o) for o in orders]
    ends: list[list[float]] = [[0.0] * len(o) for o in orders]
    busy = [0.0] * pp
    waited = [0.0] * pp
    ready_ranks = list(range(pp - 1, -1, -1))
    fwd, bwd = costs.forward, costs.backward
    recv_f, recv_b = costs.recv_forward, costs.recv_backward
    last = stages - 1
    while ready_ranks:
        rank = ready_ranks.pop()
        order, i = orders[rank], pos[rank]
        t = free[rank]
        while i < len(order):
            kind, stage, mb = order[i]
            if kind == "F":
                if stage == 0:
                    ready, transfer = 0.0, 0.0
                else:
                    dep = end_f[(stage - 1) * m + mb]
                    if dep < 0:
                        parked[(stage - 1) * m + mb] = rank
                        break
                    transfer = recv_f[stage]
                    ready = dep + transfer
                duration = fwd[stage]
            else:
                if stage == last:
                    dep = end_f[stage * m + mb]
                    key = stage * m + mb
                    transfer = 0.0
                else:
                    key = -1 - ((stage + 1) * m + mb)
                    dep = end_b[(stage + 1) * m + mb]
                    transfer = recv_b[stage]
                if dep < 0:
                    parked[key] = rank
                    break
                ready = dep + transfer
                duration = bwd[stage]
            if ready > t:
                waited[rank] += min(ready - t, transfer)
                t = ready
            starts[rank][i] = t
            t += duration
            ends[rank][i] = t
            busy[rank] += duration
            i += 1
            key = stage * m + mb if kind == "F" else -1 - (stage * m + mb)
            if kind == "F":
                end_f[stage * m + mb] = t
            else:
                end_b[stage * m + mb] = t
            woken = parked.pop(key, None)
            if woken is not None:
                ready_ranks.append(woken)
        pos[rank], free[rank] = i, t
    stuck = [r for r in range(pp) if pos[r] < len(orders[r])]
    if stuck:
        r = stuck[0]
        raise SimulationError(f"pipeline rank {r} deadlocks at action {orders[r][pos[r]]}")
    return Timeline(starts, ends, max(free, default=0.0), busy, waited)


def peak_live(order: list[Action], weight: Sequence[float]) -> float:
    """The most activation weight a rank holds at once: each F of stage s adds `weight[s]`
    until the B of the same stage and micro-batch frees it."""
    live = peak = 0.0
    for kind, stage, _ in order:
        live += weight[stage] if kind == "F" else -weight[stage]
        peak = max(peak, live)
    return peak


def peak_in_flight(order: list[Action]) -> int:
    """The most (stage, micro-batch) activations a rank holds at once."""
    return int(peak_live(order, [1.0] * (1 + max((s for _, s, _ in order), default=0))))
