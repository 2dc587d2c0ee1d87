"""Several engine instances on one clock (SIM-FIELD.md 4): colocated `vllm` instances with
requests dealt round-robin, or policy `disagg` with a prefill pool and a decode pool.

Each instance steps on its own clock. Events (arrivals, KV transfers arriving) are delivered in
time order, before any step that starts at or after their time; among steps that could start
at the same time, prefill instances go first, then by index. Under `disagg` a request runs on
the prefill instance with the least outstanding tokens until its first token, then its KV
moves (`latency + prompt_tokens * kv_bytes_per_token / bandwidth`, or `steps` with the unit
cost) and it joins the decode instance with the fewest running requests, prompt computed.
"""

from __future__ import annotations

import heapq
from dataclasses import replace

from sim.config import EngineConfig, TransferConfig, Workload
from sim.cost.data import kv_bytes_per_token, kv_bytes_per_token_at, model_table
from sim.engine import EngineCore, SimResult
from sim.entities import Request
from sim.errors import LimitExceeded
from sim.limits import DEFAULT_MAX_STEPS, step_limit_message
from sim.stall import stall_reason
from sim.trace_record import t

MS_PER_S = 1000.0
ARRIVAL, TRANSFER = 0, 1


def _kv_bytes_per_token(workload: Workload, decode: EngineConfig) -> float:
    """From the decode pool's capacity if it gives one, else the cost model's model table."""
    if decode.capacity is not None:
        return float(
            kv_bytes_per_token_at(model_table(decode.capacity.model), decode.capacity.kv_dtype)
        )
    model = model_table(workload.cost.model)
    if workload.cost.kv_dtype is not None:
        return float(kv_bytes_per_token_at(model, workload.cost.kv_dtype))
    return float(kv_bytes_per_token(model))


def transfer_time(
    transfer: TransferConfig, prompt_tokens: int, per_token: float, unit: bool
) -> float:
    """How long one request's KV takes to move, in the cost model's time unit."""
    if unit:
        return float(transfer.steps or 0.0)
    seconds = transfer.latency + prompt_tokens * per_token / transfer.bandwidth
    return seconds * MS_PER_S


class Cluster:
    """The instances, the event queue and the dispatch rules of one multi-instance run."""

    def __init__(self, workload: Workload, *, detail: bool, record: bool, max_steps: int) -> None:
        self.workload = workload
        self.max_steps = max_steps
        engine = workload.engine
        self.disagg = engine.policy == "disagg"
        self.instances: list[tuple[str, EngineCore]] = []
        if self.disagg:
            assert engine.prefill is not None and engine.decode is not None
            self._add_pool("prefill", engine.prefill, detail, record, handoff=True)
            self._add_pool("decode", engine.decode, detail, record, handoff=False)
            self.num_prefill = engine.prefill.instances
            self.per_token = _kv_bytes_per_token(workload, engine.decode)
        else:
            self._add_pool(
                "",
                replace(engine, instances=1),
                detail,
                record,
                handoff=False,
                count=engine.instances,
            )
            self.num_prefill = len(self.instances)
        self.clocks = [0.0] * len(self.instances)
        self.blocked = [False] * len(self.instances)
        self.requests = [Request(spec, i) for i, spec in enumerate(workload.requests)]
        order = sorted(self.requests, key=lambda r: (r.spec.arrival, r.index))
        self.events: list[tuple[float, int, int, int]] = [
            (r.spec.arrival, seq, ARRIVAL, r.index) for seq, r in enumerate(order)
        ]
        heapq.heapify(self.events)
        self.seq = len(order)
        self.dealt = 0

    def _add_pool(
        self,
        role: str,
        config: EngineConfig,
        detail: bool,
        record: bool,
        *,
        handoff: bool,
        count: int = 0,
    ) -> None:
        for i in range(count or config.instances):
            name = f"{role}-{i}" if role else str(i)
            core = EngineCore(
                replace(config, instances=1),
                self.workload.cost,
                detail=detail,
                record=record,
                handoff=handoff,
            )
            core.max_steps = self.max_steps
            self.instances.append((name, core))

    # -- dispatch ----------------------------------------------------------------------------
    def _pick_prefill(self, req: Request) -> int:
        if not self.disagg:
            chosen = self.dealt % len(self.instances)
            self.dealt += 1
            return chosen

        def outstanding(i: int) -> int:
            state = self.instances[i][1].state
            return sum(r.tokens - r.computed for r in [*state.running, *state.waiting])

        return min(range(self.num_prefill), key=lambda i: (outstanding(i), i))

    def _pick_decode(self) -> int:
        decode = range(self.num_prefill, len(self.instances))
        return min(decode, key=lambda i: (len(self.instances[i][1].state.running), i))

    def _deliver(self, when: float, kind: int, index: int) -> None:
        req = self.requests[index]
        target = self._pick_prefill(req) if kind == ARRIVAL else self._pick_decode()
        if kind == TRANSFER:
            req.kv_ready = req.spec.prompt_len
        core = self.instances[target][1]
        if not core.has_work():
            self.clocks[target] = max(self.clocks[target], when)
        core.enqueue(req)
        self.blocked[target] = False

    # -- the loop ----------------------------------------------------------------------------
    def _next_step(self) -> tuple[float, int] | None:
        ready = [
            (self.clocks[i], i)
            for i, (_, core) in enumerate(self.instances)
            if core.has_work() and not self.blocked[i]
        ]
        return min(ready) if ready else None

    def run(self) -> SimResult:
        """Deliver events and step instances in time order until nothing is left."""
        steps_done = 0
        while True:
            step = self._next_step()
            if self.events and (step is None or self.events[0][0] <= step[0]):
                when, _, kind, index = heapq.heappop(self.events)
                self._deliver(when, kind, index)
                continue
            if step is None:
                break
            start, i = step
            end = self.instances[i][1].step(start)
            if end is None:
                self.blocked[i] = True
                continue
            steps_done += 1
            if steps_done > self.max_steps:
                raise LimitExceeded("$", step_limit_message(self.max_steps))
            self.clocks[i] = end
            self._hand_off(self.instances[i][1], end)
        return self._result()

    def _hand_off(self, core: EngineCore, end: float) -> None:
        unit = self.workload.cost.kind == "unit"
        transfer = self.workload.engine.transfer or TransferConfig()
        for req in core.handed_off:
            arrive = end + transfer_time(transfer, req.spec.prompt_len, self.per_token, unit)
            req.transfer = (t(end), t(arrive))
            heapq.heappush(self.events, (arrive, self.seq, TRANSFER, req.index))
            self.seq += 1

    def _result(self) -> SimResult:
        steps: list[tuple[float, int, int, dict[str, object]]] = []
        for i, (name, core) in enumerate(self.instances):
            for k, step in enumerate(core.recorder.steps):
                steps.append((float(step["start"]), i, k, {**step, "instance": name}))  # type: ignore[arg-type]
        steps.sort(key=lambda item: item[:3])
        merged = [{**step, "index": n} for n, (_, _, _, step) in enumerate(steps, 1)]
        result = SimResult(self.workload.engine, self.requests, merged)
        result.num_steps = sum(core.num_steps for _, core in self.instances)
        result.scheduled_tokens = sum(core.scheduled_tokens for _, core in self.instances)
        stuck = [core for _, core in self.instances if core.has_work()]
        if stuck:
            result.stalled = True
            result.stall = stall_reason(
                replace(stuck[0].stall_facts(), next_step=result.num_steps + 1)
            )
        return result


def is_multi_instance(engine: EngineConfig) -> bool:
    """Policy disagg, or more than one colocated instance."""
    return engine.policy == "disagg" or engine.instances > 1


def simulate_cluster(
    workload: Workload,
    *,
    detail: bool = False,
    record: bool = True,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> SimResult:
    """Run a multi-instance workload (see the module docstring)."""
    return Cluster(workload, detail=detail, record=record, max_steps=max_steps).run()
