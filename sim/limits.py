"""The bounds every workload must respect (SIM-FIELD.md "Presets, sweep and limits").

They are checked before any work starts where the input alone decides (number of requests,
tokens per request, a step count the workload cannot possibly finish within), and by the
step loop for the step count it actually reaches. Past a bound: `LimitExceeded`, exit 2.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.config import EngineConfig, RequestSpec
from sim.errors import LimitExceeded

MAX_REQUESTS = 1_000_000
MAX_TOKENS_PER_REQUEST = 10_000_000
DEFAULT_MAX_STEPS = 1_000_000
# The prefix cache keeps one object per block; a million blocks is beyond any real GPU pool
# at block_size 16 and still fits in memory.
MAX_NUM_BLOCKS = 1_000_000


def check_request_count(count: int, path: str) -> None:
    """At most MAX_REQUESTS requests (checked before they are generated or parsed)."""
    if count > MAX_REQUESTS:
        raise LimitExceeded(
            path, f"{count} requests exceed the bound of {MAX_REQUESTS:,} requests (MAX_REQUESTS)"
        )


def check_num_blocks(num_blocks: int, path: str) -> None:
    """At most MAX_NUM_BLOCKS KV blocks in one pool."""
    if num_blocks > MAX_NUM_BLOCKS:
        raise LimitExceeded(
            path, f"{num_blocks} blocks exceed the bound of {MAX_NUM_BLOCKS:,} (MAX_NUM_BLOCKS)"
        )


def check_request_tokens(tokens: int, path: str) -> None:
    """At most MAX_TOKENS_PER_REQUEST tokens (prompt + max_tokens) in one request."""
    if tokens > MAX_TOKENS_PER_REQUEST:
        raise LimitExceeded(
            path,
            f"{tokens} tokens exceed the bound of {MAX_TOKENS_PER_REQUEST:,} tokens per request "
            "(MAX_TOKENS_PER_REQUEST)",
        )


def step_limit_message(max_steps: int) -> str:
    """How the step bound is named in errors."""
    return f"more than {max_steps:,} steps (the bound; raise it with --max-steps)"


def min_steps(engine: EngineConfig, requests: Sequence[RequestSpec], tokens_per_step: int) -> int:
    """A lower bound on the steps a workload needs: every output token of a request takes a step
    of its own (at most `tokens_per_step` per request per step), and no step computes more than
    the token budget (prompt tokens can be skipped only by prefix-cache hits)."""
    longest = 0
    total = 0
    for spec in requests:
        outputs = max(1, min(spec.max_tokens, engine.max_model_len - spec.prompt_len))
        longest = max(longest, -(-outputs // tokens_per_step))
        total += spec.prompt_len + outputs - 1
    if engine.enable_prefix_caching:
        return longest
    return max(longest, -(-total // engine.max_num_batched_tokens))


def check_steps_possible(
    engine: EngineConfig, requests: Sequence[RequestSpec], max_steps: int, tokens_per_step: int = 1
) -> None:
    """Refuse at once a workload that cannot finish within `max_steps` steps."""
    needed = min_steps(engine, requests, tokens_per_step)
    if needed > max_steps:
        raise LimitExceeded(
            "$", f"needs at least {needed:,} steps: {step_limit_message(max_steps)}"
        )
