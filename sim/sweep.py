"""Placeholder for the ruler sweep (filled in by a later commit)."""

from __future__ import annotations

from typing import Any


def sweep(n_requests: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """Not implemented yet."""
    return {"workload": {}, "metrics": ["throughput", "ttft", "itl"], "techniques": []}
