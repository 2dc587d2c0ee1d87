"""The fast path for policy `vllm` with paged KV (prefix caching off): the plain loop's
schedule, step for step, much faster. Tests compare both paths' trace hashes.

Most steps (`_decode_step`) keep the requests that need one token a step in a `DecodeSet`
that costs O(1) per step for all of them; only the others (a prompt being prefilled, a
request just admitted) are looked at one by one. That shortcut applies when the step's whole
demand fits the token budget and the free blocks: then the sequential loop gives every
request all it needs, in any order, and preempts nobody. Otherwise the members are written
back to the arrays and the step runs on them exactly (`sim.fast_step`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.config import Workload
from sim.cost import StepWork
from sim.engine import SimResult
from sim.entities import Request
from sim.errors import LimitExceeded
from sim.fast_decode import DecodeSet
from sim.fast_step import ArrayStepEngine
from sim.limits import DEFAULT_MAX_STEPS, step_limit_message
from sim.stall import StallFacts, stall_reason
from sim.trace_record import t


def fast_applies(workload: Workload) -> bool:
    """The fast path covers vLLM scheduling with paged blocks, recompute, no prefix caching."""
    e = workload.engine
    return (
        e.policy == "vllm"
        and e.kv_alloc == "paged"
        and not e.enable_prefix_caching
        and e.preemption == "recompute"
        and e.num_speculative_tokens == 0
        and e.instances == 1
    )


class FastVllmEngine(ArrayStepEngine):
    """The array engine plus the decode rhythm, and the run loop."""

    def __init__(
        self, workload: Workload, *, record: bool = True, max_steps: int = DEFAULT_MAX_STEPS
    ) -> None:
        super().__init__(workload, record=record, max_steps=max_steps)
        self.decode = DecodeSet(self.cfg.block_size)

    # -- the loop -------------------------------------------------------------------------------
    def run(self) -> SimResult:
        """Same control flow as `sim.engine.Engine.run`."""
        now, stall = 0.0, None
        while True:
            while self.pending and self.arrival[self.pending[0]] <= now:
                r = self.pending.popleft()
                self.waiting.append(r)
                self.waiting_names.append(self.names[r])
            if not self.running and not self.waiting:
                if not self.pending:
                    break
                now = max(now, self.arrival[self.pending[0]])
                continue
            if self.running:
                end = self._decode_step(now)
                if end is not None:
                    now = end
                    continue
                self._materialize()
            sched, given, preempted = self._schedule()
            if not len(sched) and not preempted:
                if not self.pending:
                    stall = self._stall_reason()
                    break
                now = max(now, self.arrival[self.pending[0]])
                continue
            if self.num_steps >= self.max_steps:
                raise LimitExceeded("$", step_limit_message(self.max_steps))
            now = self._execute(sched, given, preempted, now)
            self._join_decode()
        return self._result(stall)

    # -- the decode rhythm (see sim.fast_decode) ------------------------------------------------
    def _join_decode(self) -> None:
        """After an array step: running requests needing one token join the decode set."""
        bs, step, members = self.cfg.block_size, self.num_steps, self.decode.offset
        for r in self.running:
            if r in members:
                continue
            c = int(self.computed[r])
            if self.prompt_len[r] + int(self.outputs[r]) - c == 1 and int(self.held[r]) == -(
                -c // bs
            ):
                self.decode.add(r, c, self.last_computed[r], step)

    def _materialize(self) -> None:
        """Write the decode set's members back to the arrays (before an array step)."""
        bs, last = self.cfg.block_size, self.num_steps - 1
        for r, c, first in self.decode.drain():
            self.computed[r] = c
            self.outputs[r] = c + 1 - self.prompt_len[r]
            self.held[r] = -(-c // bs)
            self.token_runs.add(r, first, last)

    def _others_demand(self, threshold: int) -> list[tuple[int, int, int]] | None:
        """(request, tokens, new blocks) of running requests outside the decode set."""
        cfg, members = self.cfg, self.decode.offset
        bs, mml = cfg.block_size, cfg.max_model_len
        others = []
        for r in self.running:
            if r in members:
                continue
            c = int(self.computed[r])
            n = self.prompt_len[r] + int(self.outputs[r]) - c
            if 0 < threshold < n:
                n = threshold
            n = min(n, mml - c)
            if n <= 0:
                return None  # the array step skips it; keep that rare case there
            others.append((r, n, max(-(-min(c + n, mml) // bs) - int(self.held[r]), 0)))
        return others

    def _decode_step(self, now: float) -> float | None:
        """One step in O(decode set) = O(1) time, or None (nothing changed) when the step's
        demand exceeds the budget or the free blocks (then the array step decides)."""
        cfg, decode = self.cfg, self.decode
        threshold = cfg.long_prefill_token_threshold
        if len(self.running) + len(self.waiting) == 1:
            threshold = 0
        tokens, blocks = len(decode.offset), decode.new_blocks()
        others: list[tuple[int, int, int]] = []
        if len(self.running) > tokens:
            found = self._others_demand(threshold)
            if found is None:
                return None
            others = found
            tokens += sum(n for _, n, _ in others)
            blocks += sum(b for _, _, b in others)
        if tokens > cfg.max_num_batched_tokens or blocks > self.free:
            return None
        if self.num_steps >= self.max_steps:
            raise LimitExceeded("$", step_limit_message(self.max_steps))
        self.free -= blocks
        for r, _, b in others:
            self.held[r] += b
        given = [(r, n) for r, n, _ in others]
        budget = cfg.max_num_batched_tokens - tokens
        if self.waiting and budget > 0:
            admitted, chunks = self._waiting(budget, threshold)
            given += zip(admitted, chunks, strict=True)
        return self._execute_decode(now, given)

    def _execute_decode(self, start: float, given: list[tuple[int, int]]) -> float:
        decode, step = self.decode, self.num_steps
        total = len(decode.offset) + sum(n for _, n in given)
        context = decode.context_tokens() + sum(int(self.computed[r]) + n for r, n in given)
        # A decode's query token meets its whole context, so decodes add their context.
        pairs = decode.context_tokens() + sum(
            n * int(self.computed[r]) + n * (n + 1) // 2 for r, n in given
        )
        seqs = len(decode.offset) + len(given)
        work = StepWork(total, context, attention_pairs=pairs, sequences=seqs)
        end = start + self.cost.step_time(work)
        stamp = t(end)
        self.ends.append(stamp)
        order = list(self.running) if self.record else []
        finished: set[int] = set()
        for r in decode.advance():
            c, first = decode.remove(r)
            self.token_runs.add(r, first, step)
            self.computed[r], self.outputs[r] = c, c + 1 - self.prompt_len[r]
            self.free += -(-c // self.cfg.block_size)
            self._finish(r, stamp, finished)
        emitted = self._complete_others(given, stamp, finished)
        self.num_steps += 1
        self.scheduled_tokens += total
        if self.record:
            self._record_decode(start, end, order, dict(given), emitted, finished)
        return end

    def _complete_others(
        self, given: list[tuple[int, int]], stamp: float, finished: set[int]
    ) -> set[int]:
        """Requests outside the decode set compute their tokens; those that emit, and join."""
        step, emitted, bs = self.num_steps, set(), self.cfg.block_size
        for r, n in given:
            c = int(self.computed[r]) + n
            self.computed[r] = c
            outputs = int(self.outputs[r])
            tokens = self.prompt_len[r] + outputs
            if c == tokens:
                self.outputs[r] = outputs = outputs + 1
                tokens += 1
                emitted.add(r)
                self.token_runs.add(r, step, step)
                if tokens >= self.last_computed[r] + 1:
                    self.free += int(self.held[r])
                    self.held[r] = 0
                    self._finish(r, stamp, finished)
                    continue
            if tokens - c == 1 and int(self.held[r]) == -(-c // bs):
                self.decode.add(r, c, self.last_computed[r], step + 1)
        return emitted

    def _finish(self, r: int, stamp: float, finished: set[int]) -> None:
        self.finish[r] = stamp
        del self.running[r]
        self.run_arr = None
        finished.add(r)

    def _record_decode(
        self,
        start: float,
        end: float,
        order: list[int],
        given: dict[int, int],
        emitted: set[int],
        finished: set[int],
    ) -> None:
        names = self.names
        scheduled = {names[r]: given.get(r, 1) for r in order}
        emitted_names = [names[r] for r in order if r not in given or r in emitted]
        finished_names = [names[r] for r in order if r in finished]
        self._record_step(start, end, scheduled, [], emitted_names, finished_names)

    def _stall_reason(self) -> str:
        head = self.waiting[0] if self.waiting else None
        blocks = 0
        if head is not None:
            tokens = int(self.prompt[head] + self.outputs[head])
            blocks = -(-min(tokens, self.cfg.max_model_len) // self.cfg.block_size)
        facts = StallFacts(
            next_step=self.num_steps + 1,
            running=len(self.running),
            waiting_head=self.names[head] if head is not None else None,
            head_blocks=blocks,
            free_blocks=self.free,
            num_blocks=self.cfg.num_blocks,
            preemption=self.cfg.preemption,
        )
        return stall_reason(facts)

    def _token_times(self) -> list[Any]:
        """Each request's token times from its runs of steps. Without step records (the scale
        benchmark) they stay numpy views: tens of millions of Python floats would dominate."""
        ends: Any = self.ends if self.record else np.array(self.ends)
        times: list[Any] = []
        for runs in self.token_runs.runs:
            parts = [ends[a : b + 1] for a, b in runs]
            if len(parts) == 1:
                times.append(parts[0])
            elif self.record:
                times.append([x for part in parts for x in part])
            else:
                times.append(np.concatenate(parts) if parts else ends[:0])
        return times

    def _result(self, stall: str | None) -> SimResult:
        times = self._token_times()
        requests = []
        for i, spec in enumerate(self.workload.requests):
            req = Request(
                spec,
                i,
                computed=int(self.computed[i]),
                outputs=int(self.outputs[i]),
                preemptions=int(self.preemptions[i]),
                token_times=times[i],
                finish_time=self.finish[i],
            )
            requests.append(req)
        result = SimResult(self.cfg, requests, self.steps, stall is not None, stall=stall)
        result.num_steps, result.scheduled_tokens = self.num_steps, self.scheduled_tokens
        return result


def simulate_fast(
    workload: Workload, *, record: bool = True, max_steps: int = DEFAULT_MAX_STEPS
) -> SimResult:
    """Run `workload` on the fast path (caller checks `fast_applies`)."""
    return FastVllmEngine(workload, record=record, max_steps=max_steps).run()
