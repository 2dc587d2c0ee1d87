"""The step loop: arrivals, one scheduling decision per step, compute, emit, finish.

A request with arrival time t joins `waiting` before the first step starting at time >= t.
When nothing is runnable the clock jumps to the next arrival; when nothing can progress and
nothing will arrive, the run ends with `stalled = True` (it never loops forever).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from sim.config import CostConfig, EngineConfig, Workload
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


class EngineCore:
    """One engine instance: queues, KV, a scheduler and a cost model, advanced step by step.

    `handoff` (prefill instances of policy `disagg`): a request leaves after its first token;
    `step` then lists it in `handed_off` instead of finishing it.
    """

    def __init__(
        self,
        config: EngineConfig,
        cost: CostConfig,
        *,
        detail: bool = False,
        record: bool = True,
        handoff: bool = False,
    ) -> None:
        self.config = resolve_engine(config)
        self.state = SchedulerState(self.config, build_kv_manager(self.config))
        self.scheduler = SCHEDULERS[scheduler_name(self.config)]()
        self.cost = build_cost_model(cost)
        self.recorder = StepRecorder(self.state, [], detail=detail, record=record)
        self.num_steps = 0
        self.scheduled_tokens = 0
        self.handoff = handoff
        self.handed_off: list[Request] = []
        self.max_steps = DEFAULT_MAX_STEPS

    def has_work(self) -> bool:
        """Something is running or waiting here."""
        return bool(self.state.running or self.state.waiting)

    def enqueue(self, req: Request) -> None:
        """A request joins this instance's waiting queue (at its back)."""
        self.state.waiting.append(req)
        self.recorder.arrived(req)

    def step(self, start: float) -> float | None:
        """Schedule and run one step starting at `start`; its end time, or None when nothing
        can be scheduled (the state is then unchanged)."""
        plan = self.scheduler.schedule(self.state)
        if not plan.scheduled and not plan.preempted:
            return None
        if self.num_steps >= self.max_steps:
            raise LimitExceeded("$", step_limit_message(self.max_steps))
        return self._execute(plan, start)

    def stall_facts(self) -> StallFacts:
        """What a stall looks like from here (see `sim.stall`)."""
        state = self.state
        head = state.waiting[0] if state.waiting else None
        return StallFacts(
            next_step=self.num_steps + 1,
            running=len(state.running),
            waiting_head=head.id if head else None,
            head_blocks=state.kv.admission_blocks(head) if head else 0,
            free_blocks=state.kv.num_free(),
            num_blocks=self.config.num_blocks,
            preemption=self.config.preemption,
        )

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
        self.handed_off = []
        if self.handoff:
            self.handed_off = [r for r in emitted if r.outputs == 1 and not r.finished]
            for req in self.handed_off:
                self.scheduler.finish(self.state, req)  # leaves with its first token
        if self.handed_off:
            extra = {**(extra or {}), "handoff": [req.id for req in self.handed_off]}
        self.num_steps += 1
        self.scheduled_tokens += total
        self.recorder.step(start, end, plan, emitted, finished, extra)
        return end

    def _work(self, plan: StepPlan, total: int) -> StepWork:
        scheduled = plan.scheduled
        context = sum(req.computed + n for req, n in scheduled.items())
        pairs = sum(n * req.computed + n * (n + 1) // 2 for req, n in scheduled.items())
        k = self.config.num_speculative_tokens
        seqs = len(scheduled)
        if not k:
            return StepWork(total, context, attention_pairs=pairs, sequences=seqs)
        samplers = sum(1 for req, n in scheduled.items() if req.computed + n >= req.tokens)
        return StepWork(
            total, context, draft_runs=k, draft_batch=samplers, attention_pairs=pairs, sequences=seqs
        )

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


class Engine(EngineCore):
    """Runs one workload to completion with the plain (reference) step loop."""

    def __init__(
        self,
        workload: Workload,
        *,
        detail: bool = False,
        record: bool = True,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        super().__init__(workload.engine, workload.cost, detail=detail, record=record)
        self.max_steps = max_steps
        self.requests = [Request(spec, i) for i, spec in enumerate(workload.requests)]
        order = sorted(self.requests, key=lambda r: (r.spec.arrival, r.index))
        self.pending: deque[Request] = deque(order)
        self.result = SimResult(self.config, self.requests)

    def _admit_arrivals(self, now: float) -> None:
        pending = self.pending
        while pending and pending[0].spec.arrival <= now:
            self.enqueue(pending.popleft())

    def run(self) -> SimResult:
        """Step until every request finished (or the run stalls)."""
        now = 0.0
        while True:
            self._admit_arrivals(now)
            if not self.has_work():
                if not self.pending:
                    break
                now = max(now, self.pending[0].spec.arrival)
                continue
            end = self.step(now)
            if end is None:
                if not self.pending:
                    self.result.stalled = True
                    self.result.stall = stall_reason(self.stall_facts())
                    break
                now = max(now, self.pending[0].spec.arrival)
                continue
            now = end
        self.result.steps = self.recorder.steps
        self.result.num_steps, self.result.scheduled_tokens = self.num_steps, self.scheduled_tokens
        return self.result


def simulate(
    workload: Workload,
    *,
    detail: bool = False,
    record: bool = True,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> SimResult:
    """Run `workload` with the plain step loop (at most `max_steps` steps)."""
    return Engine(workload, detail=detail, record=record, max_steps=max_steps).run()
