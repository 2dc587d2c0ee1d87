"""The step loop: arrivals, one scheduling decision per step, compute, emit, finish.

A request with arrival time t joins `waiting` before the first step starting at time >= t.
When nothing is runnable the clock jumps to the next arrival; when nothing can progress and
nothing will arrive, the run ends with `stalled = True` (it never loops forever).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from sim.config import EngineConfig, Workload
from sim.cost import StepWork, build_cost_model
from sim.entities import Request
from sim.errors import LimitExceeded
from sim.kv import build_kv_manager
from sim.limits import DEFAULT_MAX_STEPS, step_limit_message
from sim.schedulers import SCHEDULERS, SchedulerState, StepPlan, scheduler_name
from sim.spec_step import complete_spec_step, spec_step_fields
from sim.stall import StallFacts, stall_reason
from sim.trace_record import StepRecorder, t


def resolve_engine(config: EngineConfig) -> EngineConfig:
    """The configuration actually simulated (static batching always reserves prompt + max_tokens)."""
    if config.policy == "static":
        return replace(config, kv_alloc="reserve_max")
    return config


@dataclass
class SimResult:
    """Everything a run produced, before it is turned into trace JSON."""

    config: EngineConfig
    requests: list[Request]
    steps: list[dict[str, object]] = field(default_factory=list)
    stalled: bool = False
    num_steps: int = 0
    scheduled_tokens: int = 0
    stall: str | None = None  # why it stalled, one sentence (see `sim.stall`)


class Engine:
    """Runs one workload to completion with the plain (reference) step loop."""

    def __init__(
        self,
        workload: Workload,
        *,
        detail: bool = False,
        record: bool = True,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        self.max_steps = max_steps
        self.config = resolve_engine(workload.engine)
        self.state = SchedulerState(self.config, build_kv_manager(self.config))
        self.scheduler = SCHEDULERS[scheduler_name(self.config)]()
        self.cost = build_cost_model(workload.cost)
        self.requests = [Request(spec, i) for i, spec in enumerate(workload.requests)]
        order = sorted(self.requests, key=lambda r: (r.spec.arrival, r.index))
        self.pending: deque[Request] = deque(order)
        self.recorder = StepRecorder(self.state, self.requests, detail=detail, record=record)
        self.result = SimResult(self.config, self.requests)

    def _admit_arrivals(self, now: float) -> None:
        pending, waiting = self.pending, self.state.waiting
        while pending and pending[0].spec.arrival <= now:
            req = pending.popleft()
            waiting.append(req)
            self.recorder.arrived(req)

    def run(self) -> SimResult:
        """Step until every request finished (or the run stalls)."""
        now = 0.0
        state = self.state
        while True:
            self._admit_arrivals(now)
            if not state.running and not state.waiting:
                if not self.pending:
                    break
                now = max(now, self.pending[0].spec.arrival)
                continue
            plan = self.scheduler.schedule(state)
            if not plan.scheduled and not plan.preempted:
                if not self.pending:
                    self._stalled()
                    break
                now = max(now, self.pending[0].spec.arrival)
                continue
            if self.result.num_steps >= self.max_steps:
                raise LimitExceeded("$", step_limit_message(self.max_steps))
            now = self._execute(plan, now)
        self.result.steps = self.recorder.steps
        return self.result

    def _stalled(self) -> None:
        state = self.state
        head = state.waiting[0] if state.waiting else None
        facts = StallFacts(
            next_step=self.result.num_steps + 1,
            running=len(state.running),
            waiting_head=head.id if head else None,
            head_blocks=state.kv.admission_blocks(head) if head else 0,
            free_blocks=state.kv.num_free(),
            num_blocks=self.config.num_blocks,
            preemption=self.config.preemption,
        )
        self.result.stalled = True
        self.result.stall = stall_reason(facts)

    def _execute(self, plan: StepPlan, start: float) -> float:
        scheduled = plan.scheduled
        total = sum(scheduled.values())
        end = start + (self.cost.step_time(self._work(plan, total)) if scheduled else 0.0)
        stamp = t(end)  # token times are stored rounded, once per step
        extra: dict[str, object] | None = None
        if self.config.num_speculative_tokens:
            outcome = complete_spec_step(
                plan, self.config.num_speculative_tokens, self.config.max_model_len, stamp
            )
            emitted, finished = outcome.emitted, outcome.finished
            extra = spec_step_fields(plan, outcome)
        else:
            emitted, finished = self._emit_one_token_each(plan, stamp)
        self.scheduler.after_compute(self.state, plan)
        for req in finished:
            self.scheduler.finish(self.state, req)
        self.result.num_steps += 1
        self.result.scheduled_tokens += total
        self.recorder.step(start, end, plan, emitted, finished, extra)
        return end

    def _work(self, plan: StepPlan, total: int) -> StepWork:
        scheduled = plan.scheduled
        context = sum(req.computed + n for req, n in scheduled.items())
        k = self.config.num_speculative_tokens
        if not k:
            return StepWork(total, context)
        samplers = sum(1 for req, n in scheduled.items() if req.computed + n >= req.tokens)
        return StepWork(total, context, draft_runs=k, draft_batch=samplers)

    def _emit_one_token_each(
        self, plan: StepPlan, stamp: float
    ) -> tuple[list[Request], list[Request]]:
        """SIM.md step 4: a request whose computed count reached its token count emits one."""
        mml = self.config.max_model_len
        emitted: list[Request] = []
        finished: list[Request] = []
        for req, n in plan.scheduled.items():
            req.computed += n
            if req.computed == req.tokens:
                req.outputs += 1
                req.token_times.append(stamp)
                emitted.append(req)
                if req.outputs >= req.spec.max_tokens or req.tokens >= mml:
                    req.finish_time = stamp
                    finished.append(req)
        return emitted, finished


def simulate(
    workload: Workload,
    *,
    detail: bool = False,
    record: bool = True,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> SimResult:
    """Run `workload` with the plain step loop (at most `max_steps` steps)."""
    return Engine(workload, detail=detail, record=record, max_steps=max_steps).run()
