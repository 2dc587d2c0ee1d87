"""Placeholder for the vectorised fast path (filled in by a later commit)."""

from __future__ import annotations

from sim.config import Workload
from sim.engine import SimResult, simulate


def fast_applies(workload: Workload) -> bool:
    """Whether the fast path handles this workload."""
    return False


def simulate_fast(workload: Workload) -> SimResult:
    """Same result as the plain loop."""
    return simulate(workload)
