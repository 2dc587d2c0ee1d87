"""Mutable per-request state the engine advances step by step."""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.config import RequestSpec


@dataclass(eq=False, slots=True)
class Request:
    """One request in flight: its spec plus computed/output counters and timings.

    `tokens` (prompt + outputs so far) is what the scheduler tries to make `computed`
    (tokens whose KV is written) catch up with.
    """

    spec: RequestSpec
    index: int
    computed: int = 0
    outputs: int = 0
    preemptions: int = 0
    prefix_hit_tokens: int = 0
    token_times: list[float] = field(default_factory=list)
    finish_time: float | None = None
    block_hashes: list[int] = field(default_factory=list)
    # Speculative decoding (SIM-specdecode.md); all stay 0/False when it is off.
    drafts: int = 0
    verify_steps: int = 0  # the accept cursor: a preemption does not reset it
    mid_prefill: bool = False
    drafts_verified: int = 0
    drafts_accepted: int = 0
    # Disaggregation: prompt tokens whose KV arrived by transfer (until admitted), and when.
    kv_ready: int = 0
    transfer: tuple[float, float] | None = None

    @property
    def id(self) -> str:
        """The request id from the workload."""
        return self.spec.id

    @property
    def tokens(self) -> int:
        """Prompt plus outputs so far."""
        return self.spec.prompt_len + self.outputs

    @property
    def finished(self) -> bool:
        """True once the request has emitted its last token."""
        return self.finish_time is not None
