"""The fast path's decode rhythm, kept lazily: running requests that need one token a step.

Such a request gets one token each step and emits it at the end of the step (its computed
count reaches its token count every time), so while nothing else happens to it its computed
count is ``offset + clock`` and nothing per request changes from step to step. A step then
costs O(1) for all of them: the new KV blocks they need is the number of members whose
computed count is a multiple of the block size (counted by residue), and the ones finishing
are popped from a heap keyed by the clock at which they reach their last token. Token times
are kept as runs of consecutive steps (`TokenRuns`), not one float per token.
"""

from __future__ import annotations

import heapq


class DecodeSet:
    """Requests in decode rhythm; `clock` counts the steps taken while they were members."""

    def __init__(self, block_size: int) -> None:
        self.block_size = block_size
        self.clock = 0
        self.offset: dict[int, int] = {}  # request -> computed - clock
        self.first_step: dict[int, int] = {}  # request -> index of its first step as a member
        self.finishes: list[tuple[int, int]] = []  # (clock at which it finishes, request)
        self.by_residue = [0] * block_size  # members by offset % block_size
        self.offset_sum = 0

    def __len__(self) -> int:
        return len(self.offset)

    def __contains__(self, r: int) -> bool:
        return r in self.offset

    def add(self, r: int, computed: int, last_computed: int, next_step: int) -> None:
        """`r` joins at `computed`; it finishes once computed reaches `last_computed`."""
        a = computed - self.clock
        self.offset[r] = a
        self.first_step[r] = next_step
        heapq.heappush(self.finishes, (max(last_computed, computed + 1) - a, r))
        self.by_residue[a % self.block_size] += 1
        self.offset_sum += a

    def computed(self, r: int) -> int:
        """`r`'s computed count now."""
        return self.offset[r] + self.clock

    def new_blocks(self) -> int:
        """KV blocks the members need for this step's token (one per member at a boundary)."""
        return self.by_residue[-self.clock % self.block_size]

    def context_tokens(self) -> int:
        """Sum over members of computed + 1 (the KV a step reads for them)."""
        return self.offset_sum + len(self.offset) * (self.clock + 1)

    def advance(self) -> list[int]:
        """Take one step; the members whose last token it emits (they leave the set)."""
        self.clock += 1
        done: list[int] = []
        finishes = self.finishes
        while finishes and finishes[0][0] == self.clock:
            done.append(heapq.heappop(finishes)[1])
        return done

    def remove(self, r: int) -> tuple[int, int]:
        """`r` leaves (after `advance` returned it): its computed count and first step."""
        a = self.offset.pop(r)
        self.by_residue[a % self.block_size] -= 1
        self.offset_sum -= a
        return a + self.clock, self.first_step.pop(r)

    def drain(self) -> list[tuple[int, int, int]]:
        """Every member leaves: (request, computed, first step) each."""
        clock = self.clock
        out = [(r, a + clock, self.first_step[r]) for r, a in self.offset.items()]
        self.offset.clear()
        self.first_step.clear()
        self.finishes.clear()
        self.by_residue = [0] * self.block_size
        self.offset_sum = 0
        return out


class TokenRuns:
    """Each request's emitting steps as runs [first, last] of consecutive step indices."""

    def __init__(self, n: int) -> None:
        self.runs: list[list[list[int]]] = [[] for _ in range(n)]

    def add(self, r: int, first: int, last: int) -> None:
        """`r` emitted one token at each step first..last (nothing if last < first)."""
        if last < first:
            return
        runs = self.runs[r]
        if runs and runs[-1][1] == first - 1:
            runs[-1][1] = last
        else:
            runs.append([first, last])
