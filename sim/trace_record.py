"""Records each step as the JSON-ready dict of the trace contract (plus detail fields)."""

from __future__ import annotations

from sim.entities import Request
from sim.schedulers import SchedulerState, StepPlan

TIME_DECIMALS = 9


def t(value: float) -> float:
    """Times are rounded so that traces read cleanly and stay byte-stable."""
    return round(value, TIME_DECIMALS)


class StepRecorder:
    """Builds the `steps` list; with `detail`, adds blocks/reserved/computed/tokens and the
    paged managers' `block_table` (each request's block ids) per step, and `shared`: blocks with
    several holders, when prefix caching shares any."""

    def __init__(
        self,
        state: SchedulerState,
        requests: list[Request],
        *,
        detail: bool = False,
        record: bool = True,
    ) -> None:
        self.state = state
        self.detail = detail
        self.record = record
        self.steps: list[dict[str, object]] = []
        self.live: dict[int, Request] = {}

    def arrived(self, req: Request) -> None:
        """A request joined `waiting` (tracked for detail fields)."""
        if self.detail:
            self.live[req.index] = req

    def step(
        self,
        start: float,
        end: float,
        plan: StepPlan,
        emitted: list[Request],
        finished: list[Request],
        extra: dict[str, object] | None = None,
    ) -> None:
        """Append one step's record (`extra`: fields of an extension, e.g. drafts)."""
        if not self.record:
            return
        state = self.state
        entry: dict[str, object] = {
            "index": len(self.steps) + 1,
            "start": t(start),
            "end": t(end),
            "scheduled": {req.id: n for req, n in plan.scheduled.items()},
            "preempted": [req.id for req in plan.preempted],
            "emitted": [req.id for req in emitted],
            "finished": [req.id for req in finished],
            "free_blocks": state.kv.num_free(),
            "running": [req.id for req in state.running],
            "waiting": [req.id for req in state.waiting],
        }
        if extra:
            entry.update(extra)
        if self.detail:
            self._add_detail(entry, finished)
        self.steps.append(entry)

    def _add_detail(self, entry: dict[str, object], finished: list[Request]) -> None:
        kv = self.state.kv
        live = [self.live[i] for i in sorted(self.live)]
        entry["blocks"] = {r.id: kv.held(r) for r in live if kv.held(r) > 0}
        entry["reserved"] = {r.id: kv.reserved_slots(r) for r in live if kv.reserved_slots(r) > 0}
        table = {r.id: list(ids) for r in live if (ids := kv.block_ids(r))}
        if table:
            entry["block_table"] = table
        shared = kv.shared()
        if shared:
            entry["shared"] = [{"owners": list(ids), "blocks": n} for ids, n in shared]
        shown = [r for r in live if not r.finished or r in finished]
        entry["computed"] = {r.id: r.computed for r in shown}
        entry["tokens"] = {r.id: r.tokens for r in shown}
        for r in live:
            if r.finished and kv.held(r) == 0:
                del self.live[r.index]
