"""The fast path's exact step on arrays (one slot per request index): the same schedule as
the plain loop, with the RUNNING pass done as numpy array arithmetic.

Why it is exact: when the blocks all running requests need this step fit the free blocks,
the sequential RUNNING loop never preempts, so every request gets
``min(need, max(budget - tokens given to earlier requests, 0))``, a cumulative sum. Steps
where blocks run short fall back to a scalar copy of the loop (with preemption). The WAITING
pass is scalar (it admits a few requests at most).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from sim.config import Workload
from sim.cost import StepWork, build_cost_model
from sim.engine import resolve_engine
from sim.fast_decode import TokenRuns
from sim.limits import DEFAULT_MAX_STEPS
from sim.trace_record import t

I64 = np.int64


class ArrayStepEngine:
    """Array-backed engine state (one slot per request index) and the exact step on it."""

    def __init__(
        self, workload: Workload, *, record: bool = True, max_steps: int = DEFAULT_MAX_STEPS
    ) -> None:
        self.max_steps = max_steps
        self.cfg = resolve_engine(workload.engine)
        self.workload = workload
        self.cost = build_cost_model(workload.cost)
        self.record = record
        specs = workload.requests
        n = len(specs)
        self.names = [s.id for s in specs]
        self.names_arr = np.array(self.names, dtype=object)
        self.prompt = np.array([s.prompt_len for s in specs], dtype=I64)
        self.max_tokens = np.array([s.max_tokens for s in specs], dtype=I64)
        self.computed = np.zeros(n, dtype=I64)
        self.outputs = np.zeros(n, dtype=I64)
        self.held = np.zeros(n, dtype=I64)
        self.preemptions = np.zeros(n, dtype=I64)
        self.finish = [None] * n  # type: list[float | None]
        self.pending = deque(sorted(range(n), key=lambda i: (specs[i].arrival, i)))
        self.arrival = [s.arrival for s in specs]
        self.prompt_len = [s.prompt_len for s in specs]  # scalar reads: lists beat numpy
        self.last_computed = [
            min(s.max_tokens + s.prompt_len, self.cfg.max_model_len) - 1 for s in specs
        ]
        self.running: dict[int, None] = {}  # in scheduling order (a dict: O(1) removal)
        self.run_arr: np.ndarray | None = None
        self.waiting: deque[int] = deque()
        self.waiting_names: deque[str] = deque()
        self.free = self.cfg.num_blocks
        self.token_runs = TokenRuns(n)
        self.ends: list[float] = []  # each step's end time (rounded), by step index
        self.steps: list[dict[str, object]] = []
        self.num_steps = 0
        self.scheduled_tokens = 0

    # -- queues ---------------------------------------------------------------------------
    def _running_array(self) -> np.ndarray:
        if self.run_arr is None:
            self.run_arr = np.fromiter(self.running, dtype=I64, count=len(self.running))
        return self.run_arr

    def _preempt(self, v: int) -> None:
        self.free += int(self.held[v])
        self.held[v] = 0
        self.computed[v] = 0
        self.preemptions[v] += 1
        self.waiting.appendleft(v)
        self.waiting_names.appendleft(self.names[v])

    def _alloc(self, r: int, n: int) -> bool:
        bs, mml = self.cfg.block_size, self.cfg.max_model_len
        need = -(-min(int(self.computed[r]) + n, mml) // bs) - int(self.held[r])
        if need > self.free:
            return False
        if need > 0:
            self.free -= need
            self.held[r] += need
        return True

    # -- the RUNNING pass -------------------------------------------------------------------
    def _running_vector(self, threshold: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        """All running requests' tokens at once; None if blocks would run short."""
        cfg = self.cfg
        r = self._running_array()
        comp = self.computed[r]
        need = self.prompt[r] + self.outputs[r] - comp
        if threshold > 0:
            np.minimum(need, threshold, out=need)
        np.minimum(need, cfg.max_model_len - comp, out=need)
        before = np.cumsum(need) - need
        n = np.minimum(need, np.maximum(cfg.max_num_batched_tokens - before, 0))
        ceil_blocks = (
            np.minimum(comp + n, cfg.max_model_len) + cfg.block_size - 1
        ) // cfg.block_size
        blocks = np.maximum(ceil_blocks - self.held[r], 0)
        total_blocks = int(blocks.sum())
        if total_blocks > self.free:
            return None
        self.free -= total_blocks
        self.held[r] += blocks
        mask = n > 0
        sched, given = r[mask], n[mask]
        return sched, given, cfg.max_num_batched_tokens - int(given.sum())

    def _running_scalar(self, threshold: int) -> tuple[list[int], list[int], list[int], int]:
        """The sequential loop with preemption of running[-1], for steps short of blocks."""
        cfg = self.cfg
        budget, i = cfg.max_num_batched_tokens, 0
        sched: list[int] = []
        given: list[int] = []
        preempted: list[int] = []
        running = list(self.running)
        while i < len(running) and budget > 0:
            r = running[i]
            c = int(self.computed[r])
            n = int(self.prompt[r] + self.outputs[r]) - c
            if 0 < threshold < n:
                n = threshold
            n = min(n, budget, cfg.max_model_len - c)
            if n <= 0:
                i += 1
                continue
            ok = self._alloc(r, n)
            while not ok:
                victim = running.pop()
                self.run_arr = None
                self._preempt(victim)
                preempted.append(victim)
                if victim == r:
                    break
                ok = self._alloc(r, n)
            if not ok:
                break
            sched.append(r)
            given.append(n)
            budget -= n
            i += 1
        if preempted:
            self.running = dict.fromkeys(running)
        return sched, given, preempted, budget

    # -- the WAITING pass -------------------------------------------------------------------
    def _waiting(self, budget: int, threshold: int) -> tuple[list[int], list[int]]:
        cfg = self.cfg
        bs, mml = cfg.block_size, cfg.max_model_len
        sched: list[int] = []
        given: list[int] = []
        while self.waiting and budget > 0:
            if len(self.running) >= cfg.max_num_seqs:
                break
            r = self.waiting[0]
            tokens = self.prompt_len[r] + int(self.outputs[r])
            n = tokens
            if 0 < threshold < n:
                n = threshold
            if not cfg.enable_chunked_prefill and n > budget:
                break
            n = min(n, budget)
            if -(-min(tokens, mml) // bs) > self.free:
                break
            self.computed[r] = 0
            if not self._alloc(r, n):
                break
            self.waiting.popleft()
            self.waiting_names.popleft()
            self.running[r] = None
            self.run_arr = None
            sched.append(r)
            given.append(n)
            budget -= n
        return sched, given

    # -- one step -----------------------------------------------------------------------------
    def _schedule(self) -> tuple[np.ndarray, np.ndarray, list[int]]:
        threshold = self.cfg.long_prefill_token_threshold
        if len(self.running) + len(self.waiting) == 1:
            threshold = 0
        preempted: list[int] = []
        vec = self._running_vector(threshold) if self.running else None
        if vec is not None:
            sched_r, given_r, budget = vec
        elif self.running:
            s_list, g_list, preempted, budget = self._running_scalar(threshold)
            sched_r, given_r = np.array(s_list, dtype=I64), np.array(g_list, dtype=I64)
        else:
            sched_r, given_r = np.zeros(0, dtype=I64), np.zeros(0, dtype=I64)
            budget = self.cfg.max_num_batched_tokens
        if not preempted and self.waiting and budget > 0:
            s_w, g_w = self._waiting(budget, threshold)
            if s_w:
                sched_r = np.concatenate([sched_r, np.array(s_w, dtype=I64)])
                given_r = np.concatenate([given_r, np.array(g_w, dtype=I64)])
        return sched_r, given_r, preempted

    def _execute(
        self, sched: np.ndarray, given: np.ndarray, preempted: list[int], start: float
    ) -> float:
        comp_before = self.computed[sched]
        total = int(given.sum())
        context = int(comp_before.sum()) + total
        pairs = int((given * comp_before).sum() + (given * (given + 1) // 2).sum())
        work = StepWork(total, context, attention_pairs=pairs, sequences=len(sched))
        end = start + (self.cost.step_time(work) if len(sched) else 0.0)
        new_comp = comp_before + given
        self.computed[sched] = new_comp
        emit = sched[new_comp == self.prompt[sched] + self.outputs[sched]]
        self.outputs[emit] += 1
        out_e = self.outputs[emit]
        done = emit[
            (out_e >= self.max_tokens[emit]) | (self.prompt[emit] + out_e >= self.cfg.max_model_len)
        ]
        stamp = t(end)  # token times are stored rounded, once per step
        self.ends.append(stamp)
        step = self.num_steps
        for r in emit.tolist():
            self.token_runs.add(r, step, step)
        if len(done):
            self.free += int(self.held[done].sum())
            self.held[done] = 0
            for r in done.tolist():
                self.finish[r] = stamp
                del self.running[r]
            self.run_arr = None
        self.num_steps += 1
        self.scheduled_tokens += total
        if self.record:
            self._record(start, end, sched, given, preempted, emit, done)
        return end

    def _record(
        self,
        start: float,
        end: float,
        sched: np.ndarray,
        given: np.ndarray,
        preempted: list[int],
        emit: np.ndarray,
        done: np.ndarray,
    ) -> None:
        names = self.names_arr
        scheduled = dict(zip(names[sched].tolist(), given.tolist(), strict=True))
        preempted_names = [self.names[v] for v in preempted]
        self._record_step(start, end, scheduled, preempted_names, names[emit], names[done])

    def _record_step(
        self,
        start: float,
        end: float,
        scheduled: dict[str, int],
        preempted: list[str],
        emitted: Any,
        finished: Any,
    ) -> None:
        self.steps.append(
            {
                "index": len(self.steps) + 1,
                "start": t(start),
                "end": t(end),
                "scheduled": scheduled,
                "preempted": preempted,
                "emitted": list(emitted),
                "finished": list(finished),
                "free_blocks": self.free,
                "running": [self.names[r] for r in self.running],
                "waiting": list(self.waiting_names),
            }
        )
