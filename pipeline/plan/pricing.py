"""Token prices (`pipeline/plan/pricing.json`, with its source and date) and the cost of a run."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pipeline.errors import LLMUsage
from pipeline.plan.models import longest_prefix

PRICING_FILE = Path(__file__).with_name("pricing.json")
TOKENS_PER_MTOK = 1_000_000


@cache
def _prices() -> dict[str, dict[str, float]]:
    models: dict[str, dict[str, float]] = json.loads(PRICING_FILE.read_text(encoding="utf-8"))[
        "models"
    ]
    return models


def estimate_cost(model: str, usage: LLMUsage) -> tuple[float, bool]:
    """(USD, whether the model is in pricing.json): longest matching model-id prefix wins."""
    key = longest_prefix(model, _prices())
    if key is None:
        return 0.0, False
    p = _prices()[key]
    total = (
        usage.input_tokens * p["input"]
        + usage.output_tokens * p["output"]
        + usage.cache_creation_input_tokens * p["cache_write"]
        + usage.cache_read_input_tokens * p["cache_read"]
    )
    return round(total / TOKENS_PER_MTOK, 6), True


def usage_dict(usage: LLMUsage, cost: float) -> dict[str, float]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "calls": usage.calls,
        "cached_calls": usage.extra.get("cached_calls", 0.0),
        "cost_usd": cost,
    }


def tokens_and_cost(model: str, usage: LLMUsage) -> str:
    """Tokens by kind and the estimated cost, as the terminal shows them."""
    cost, known = estimate_cost(model, usage)
    money = (
        f"est. cost ${cost:.4f}"
        if known
        else f"cost unknown ({model} is not in pipeline/plan/pricing.json)"
    )
    return (
        f"input {usage.input_tokens:,} · output {usage.output_tokens:,} · cache write "
        f"{usage.cache_creation_input_tokens:,} · cache read {usage.cache_read_input_tokens:,} "
        f"tokens · {money}"
    )


def spend_line(model: str, usage: LLMUsage) -> str:
    """One line saying what a (possibly failed) extraction spent, for the terminal."""
    return f"spent: {usage.calls} call(s) to {model or 'the model'}: {tokens_and_cost(model, usage)}"


def forecast_line(model: str, calls: list[tuple[int, int]]) -> str:
    """What `calls` (each: input tokens, output limit) would cost at most, every answer as long
    as its limit allows, as the question before a large run shows it."""
    usage = LLMUsage(
        input_tokens=sum(i for i, _ in calls), output_tokens=sum(o for _, o in calls)
    )
    cost, known = estimate_cost(model, usage)
    if not known:
        return f"cost unknown ({model} is not in pipeline/plan/pricing.json)"
    return (
        f"est. cost at most ${cost:,.2f} at {model}'s list prices ({usage.input_tokens:,} input "
        f"tokens, up to {usage.output_tokens:,} output)"
    )
