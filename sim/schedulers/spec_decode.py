"""The vLLM V1 scheduler with speculative decoding (SIM-specdecode.md, k > 0).

Same phases as `sim.schedulers.vllm`, with drafts: a running request asks for
`tokens + drafts - computed`, capped so its position stays below max_model_len; a waiting
request left with exactly one token to compute may be padded to `1 + k` (placeholder drafts);
a padded or long chunk must also get its own blocks before admission. What happens after the
model runs (verify, rollback, emission, drafting) is `sim.spec_step`.
"""

from __future__ import annotations

from sim.errors import SimulationError
from sim.schedulers.base import (
    Scheduler,
    SchedulerState,
    StepPlan,
    allocate_or_preempt,
    move_to_running,
)
from sim.schedulers.vllm import effective_threshold


class SpecDecodeScheduler(Scheduler):
    """vLLM scheduling with `num_speculative_tokens = k > 0` and a drafter without KV."""

    name = "vllm_spec"

    def schedule(self, state: SchedulerState) -> StepPlan:
        """RUNNING with drafts, then WAITING with padding if nobody was preempted."""
        plan = StepPlan()
        threshold = effective_threshold(state)
        budget, prefill_continues = schedule_running_spec(
            state, plan, state.config.max_num_batched_tokens, threshold
        )
        if not plan.preempted:
            schedule_waiting_spec(state, plan, budget, threshold, prefill_continues)
        return plan


def schedule_running_spec(
    state: SchedulerState, plan: StepPlan, budget: int, threshold: int
) -> tuple[int, bool]:
    """RUNNING phase; returns the budget left and whether a scheduled request continued a
    prefill from an earlier step (`mid_prefill`), which forbids padding in WAITING."""
    mml = state.config.max_model_len
    running = state.running
    prefill_continues = False
    i = 0
    while i < len(running) and budget > 0:
        req = running[i]
        n = req.tokens + req.drafts - req.computed
        if 0 < threshold < n:
            n = threshold
        n = min(n, budget, mml - 1 - req.computed)
        if n <= 0:
            i += 1
            continue
        if state.config.preemption == "none":
            if not state.kv.allocate(req, n):
                i += 1
                continue
        elif not allocate_or_preempt(state, plan, req, n):
            break
        scheduled_drafts = req.computed + n - req.tokens
        if scheduled_drafts > 0:
            plan.drafts[req] = scheduled_drafts
        req.drafts = 0  # drafts cut by budget, threshold or max_model_len are thrown away
        prefill_continues = prefill_continues or req.mid_prefill
        plan.scheduled[req] = n
        budget -= n
        i += 1
    return budget, prefill_continues


def schedule_waiting_spec(
    state: SchedulerState, plan: StepPlan, budget: int, threshold: int, prefill_continues: bool
) -> int:
    """WAITING phase with padding, the admission gate and the chunk's own block check."""
    cfg, kv = state.config, state.kv
    k = cfg.num_speculative_tokens
    running_scheduled = bool(plan.scheduled)
    while state.waiting and budget > 0 and len(state.running) < cfg.max_num_seqs:
        req = state.waiting[0]
        hit = kv.lookup(req)
        hit_tokens = len(hit) * kv.block_size
        n = req.tokens - hit_tokens
        padded = (
            n == 1
            and not prefill_continues
            and (running_scheduled or hit_tokens > 0)
            and hit_tokens + k + 2 <= cfg.max_model_len
        )
        if padded:
            n = 1 + k
            if n > budget:
                break  # no later request is tried, and this one is not admitted unpadded
            if 0 < threshold < n:
                raise SimulationError(
                    f"request {req.id} would be padded to {n} tokens under "
                    f"long_prefill_token_threshold {threshold} < 1 + k: vLLM 0.32 fails an "
                    "assertion here (raise the threshold or lower num_speculative_tokens)"
                )
        if 0 < threshold < n:
            n = threshold
        if not cfg.enable_chunked_prefill and n > budget:
            break
        n = min(n, budget)
        if not kv.whole_fits(req, hit) or not kv.chunk_fits(req, hit, n):
            break
        if not move_to_running(state, plan, req, hit, n):
            break
        if padded:
            plan.drafts[req] = k
            plan.padded.append(req)
        budget -= n
    return budget
