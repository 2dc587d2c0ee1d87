"""The vLLM V1 scheduler (synchronous, FCFS): running first, then waiting, one token budget."""

from __future__ import annotations

from sim.schedulers.base import (
    Scheduler,
    SchedulerState,
    StepPlan,
    move_to_running,
    schedule_running,
)


def effective_threshold(state: SchedulerState) -> int:
    """The long-prefill cap, which is not applied when only one request is in the system."""
    if len(state.running) + len(state.waiting) == 1:
        return 0
    return state.config.long_prefill_token_threshold


class VllmScheduler(Scheduler):
    """Continuous batching with chunked prefill, preemption and (optionally) prefix caching."""

    name = "vllm"

    def schedule(self, state: SchedulerState) -> StepPlan:
        """One step of SIM.md's engine model: RUNNING loop, then WAITING if nobody was preempted."""
        plan = StepPlan()
        threshold = effective_threshold(state)
        budget = schedule_running(state, plan, state.config.max_num_batched_tokens, threshold)
        if not plan.preempted:
            schedule_waiting(state, plan, budget, threshold)
        return plan


def schedule_waiting(state: SchedulerState, plan: StepPlan, budget: int, threshold: int) -> int:
    """vLLM's WAITING loop: FCFS admission under budget, max_num_seqs and the whole-sequence gate."""
    cfg, kv = state.config, state.kv
    while state.waiting and budget > 0:
        if len(state.running) >= cfg.max_num_seqs:
            break
        req = state.waiting[0]
        hit = kv.lookup(req) if not req.kv_ready else []  # transferred KV: no lookup
        hit_tokens = len(hit) * kv.block_size
        n = req.tokens - max(hit_tokens, req.kv_ready)
        if 0 < threshold < n:
            n = threshold
        if not cfg.enable_chunked_prefill and n > budget:
            break  # head-of-line blocking: later requests are not tried
        n = min(n, budget)
        if not kv.whole_fits(req, hit):
            break  # waiting never preempts
        if not move_to_running(state, plan, req, hit, n):
            break
        budget -= n
    return budget
