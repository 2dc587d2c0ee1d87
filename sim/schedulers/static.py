"""Static (request-level) batching, FasterTransformer style.

When the engine is idle it takes up to max_num_seqs waiting requests whose prompt +
max_tokens reservation fits, runs all their prompts in one step (the token budget does not
apply), then decodes until the LAST one finishes. Finished members leave `running` but keep
their reservation ("idle slots") until the batch ends; arrivals wait for the whole batch.
"""

from __future__ import annotations

from sim.entities import Request
from sim.schedulers.base import Scheduler, SchedulerState, StepPlan


class StaticScheduler(Scheduler):
    """One fixed batch at a time."""

    name = "static"

    def __init__(self) -> None:
        self.batch: list[Request] = []

    def schedule(self, state: SchedulerState) -> StepPlan:
        """Decode the current batch, or form a new one when it is done."""
        plan = StepPlan()
        if not state.running:
            for member in self.batch:
                state.kv.free(member)
            self.batch = []
            while state.waiting and len(self.batch) < state.config.max_num_seqs:
                req = state.waiting[0]
                if not state.kv.whole_fits(req, []) or not state.kv.admit(req, [], req.tokens):
                    break
                state.waiting.popleft()
                state.running.append(req)
                self.batch.append(req)
        for req in state.running:
            plan.scheduled[req] = req.tokens - req.computed
        return plan

    def finish(self, state: SchedulerState, req: Request) -> None:
        """Leave `running` but keep the reservation until the whole batch ends."""
        state.running.remove(req)
