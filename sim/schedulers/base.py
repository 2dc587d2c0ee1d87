"""Shared scheduler state, the step plan, and the pieces several policies reuse."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass, field

from sim.config import EngineConfig
from sim.entities import Request
from sim.kv import KVManager


@dataclass
class SchedulerState:
    """The queues and the KV manager one engine owns.

    `running` is in admission order; `waiting` is FCFS (preempted requests go to its front).
    """

    config: EngineConfig
    kv: KVManager
    running: list[Request] = field(default_factory=list)
    waiting: deque[Request] = field(default_factory=deque)


@dataclass
class StepPlan:
    """What one step computes: tokens per request (in scheduling order) and the victims."""

    scheduled: dict[Request, int] = field(default_factory=dict)
    preempted: list[Request] = field(default_factory=list)


class Scheduler(ABC):
    """Base policy: subclasses implement `schedule`; finishing frees KV at once."""

    name = "base"

    @abstractmethod
    def schedule(self, state: SchedulerState) -> StepPlan:
        """Decide the next step (mutates queues and KV allocations)."""

    def after_compute(self, state: SchedulerState, plan: StepPlan) -> None:  # noqa: B027 (optional hook)
        """Hook after computed counts grew and tokens were emitted (default: nothing)."""

    def finish(self, state: SchedulerState, req: Request) -> None:
        """A request emitted its last token: leave `running`, free its blocks now."""
        state.running.remove(req)
        state.kv.free(req)


def preempt(state: SchedulerState, victim: Request) -> None:
    """Recompute-style preemption: free all blocks, forget computed KV, go to the FRONT of waiting."""
    state.kv.free(victim)
    victim.computed = 0
    victim.preemptions += 1
    state.waiting.appendleft(victim)


def schedule_running(state: SchedulerState, plan: StepPlan, budget: int, threshold: int) -> int:
    """vLLM's RUNNING loop; returns the budget left.

    In list order while budget remains: give each request the tokens it lacks (capped by the
    long-prefill threshold, the budget and max_model_len), allocating blocks; when blocks run
    out, preempt `running[-1]` until it fits (or the request itself was the victim). With
    `preemption: none` a request that cannot get its blocks just sits this step out.
    """
    cfg = state.config
    running = state.running
    i = 0
    while i < len(running) and budget > 0:
        req = running[i]
        n = req.tokens - req.computed
        if 0 < threshold < n:
            n = threshold
        n = min(n, budget, cfg.max_model_len - req.computed)
        if n <= 0:
            i += 1
            continue
        ok = state.kv.allocate(req, n)
        if not ok and cfg.preemption == "none":
            i += 1
            continue
        while not ok:
            victim = running.pop()
            preempt(state, victim)
            plan.preempted.append(victim)
            if victim is req:
                break
            ok = state.kv.allocate(req, n)
        if not ok:
            break
        plan.scheduled[req] = n
        budget -= n
        i += 1
    return budget
