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
    # Speculative decoding: draft positions per scheduled request (s > 0 only), and the
    # requests whose drafts are padding (SIM-specdecode.md step 3).
    drafts: dict[Request, int] = field(default_factory=dict)
    padded: list[Request] = field(default_factory=list)


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
    victim.drafts = 0
    victim.preemptions += 1
    state.waiting.appendleft(victim)


def move_to_running(
    state: SchedulerState, plan: StepPlan, req: Request, hit: list[int], n: int
) -> bool:
    """Admit the head of `waiting` with its prefix hit and a first chunk of `n` tokens;
    False (nothing changed) if the chunk's blocks cannot be allocated."""
    if not state.kv.admit(req, hit, n):
        return False
    req.kv_ready = 0  # a later preemption recomputes
    state.waiting.popleft()
    req.prefix_hit_tokens += len(hit) * state.kv.block_size
    state.running.append(req)
    plan.scheduled[req] = n
    return True


def allocate_or_preempt(state: SchedulerState, plan: StepPlan, req: Request, n: int) -> bool:
    """Blocks for `n` more tokens of `req`, preempting `running[-1]` until they fit.

    False when the request itself was the victim (the RUNNING phase then ends)."""
    ok = state.kv.allocate(req, n)
    while not ok:
        victim = state.running.pop()
        preempt(state, victim)
        plan.preempted.append(victim)
        if victim is req:
            return False
        ok = state.kv.allocate(req, n)
    return True


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
        if cfg.preemption == "none":
            if not state.kv.allocate(req, n):
                i += 1
                continue
        elif not allocate_or_preempt(state, plan, req, n):
            break
        plan.scheduled[req] = n
        budget -= n
        i += 1
    return budget
