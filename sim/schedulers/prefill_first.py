"""Prefill-first scheduling (vLLM V0 / Orca era): a waiting prompt that fits runs in a
prefill-only step and every decode pauses for it (the "generation stall").

Prompts are never chunked. A prefill step takes waiting prompts FCFS while they fit the
token budget, max_num_seqs and the KV gate, but always at least the head one, so a prompt
longer than the budget still runs (alone) instead of blocking forever.
"""

from __future__ import annotations

from sim.schedulers.base import Scheduler, SchedulerState, StepPlan, schedule_running


class PrefillFirstScheduler(Scheduler):
    """Prefill-only steps take priority; decodes run only when no prompt can start."""

    name = "prefill_first"

    def schedule(self, state: SchedulerState) -> StepPlan:
        """A prefill step if the head of `waiting` can start, else a decode step."""
        plan = StepPlan()
        cfg, kv = state.config, state.kv
        budget = cfg.max_num_batched_tokens
        while state.waiting and len(state.running) < cfg.max_num_seqs:
            req = state.waiting[0]
            hit = kv.lookup(req)
            n = req.tokens - len(hit) * kv.block_size
            if plan.scheduled and n > budget:
                break
            if not kv.whole_fits(req, hit) or not kv.admit(req, hit, n):
                break
            state.waiting.popleft()
            req.prefix_hit_tokens += len(hit) * kv.block_size
            state.running.append(req)
            plan.scheduled[req] = n
            budget -= n
        if plan.scheduled:
            return plan
        schedule_running(state, plan, cfg.max_num_batched_tokens, 0)
        return plan
