"""Continuous batching WITHOUT a KV cache: every step recomputes each request's whole
context (prompt + outputs so far), so a decode costs its full length, not one token.

Requests are taken FCFS (running first) while their full context fits the token budget.
"""

from __future__ import annotations

from sim.schedulers.base import Scheduler, SchedulerState, StepPlan


class NoKVCacheScheduler(Scheduler):
    """Recompute everything every step; nothing is kept between steps."""

    name = "no_kv_cache"

    def schedule(self, state: SchedulerState) -> StepPlan:
        """Running requests first, then admissions, each scheduled its full context."""
        plan = StepPlan()
        budget = state.config.max_num_batched_tokens
        for req in state.running:
            if req.tokens > budget and plan.scheduled:
                break
            plan.scheduled[req] = req.tokens
            budget -= req.tokens
        while state.waiting and len(state.running) < state.config.max_num_seqs:
            req = state.waiting[0]
            if req.tokens > budget and (plan.scheduled or state.running):
                break
            state.waiting.popleft()
            state.kv.admit(req, [], req.tokens)
            state.running.append(req)
            plan.scheduled[req] = req.tokens
            budget -= req.tokens
        return plan

    def after_compute(self, state: SchedulerState, plan: StepPlan) -> None:
        """No KV is kept: forget what was computed."""
        for req in plan.scheduled:
            req.computed = 0
