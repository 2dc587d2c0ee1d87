"""Why a run stalled: one sentence naming the request that cannot start and the numbers.

A run stalls when requests remain, none will arrive, and no step can be scheduled (a prompt
larger than the whole KV pool, or `preemption: none` with every running request short of a
block). The CLI prints the sentence on stderr and exits 1.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StallFacts:
    """What the engine saw when it could not schedule a step."""

    next_step: int
    running: int
    waiting_head: str | None
    head_blocks: int
    free_blocks: int
    num_blocks: int
    preemption: str


def stall_reason(facts: StallFacts) -> str:
    """`stalled before step N: <why>`."""
    lead = f"stalled before step {facts.next_step}: "
    if facts.running and facts.preemption == "none":
        return lead + (
            f"{facts.running} running request(s) each need a new KV block, {facts.free_blocks} "
            "free, and preemption is off (use preemption: recompute or more num_blocks)"
        )
    if facts.waiting_head is not None and facts.head_blocks > facts.num_blocks:
        return lead + (
            f"request {facts.waiting_head} needs {facts.head_blocks} KV blocks for its whole "
            f"sequence but the pool has only {facts.num_blocks} (raise num_blocks or shorten it)"
        )
    if facts.waiting_head is not None:
        return lead + (
            f"request {facts.waiting_head} needs {facts.head_blocks} KV blocks, "
            f"{facts.free_blocks} of {facts.num_blocks} free, and nothing running will free more"
        )
    return lead + f"{facts.running} running request(s) cannot be scheduled"
