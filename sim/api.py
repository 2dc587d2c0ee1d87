"""The small public surface: run a workload (dict or file) and get the trace dict."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.cluster import is_multi_instance, simulate_cluster
from sim.engine import SimResult, simulate
from sim.errors import WorkloadError
from sim.limits import DEFAULT_MAX_STEPS, check_steps_possible
from sim.trace import build_trace
from sim.workload import parse_workload


def parse_workload_text(text: str, where: str = "$") -> Any:
    """Workload JSON text -> data; every way the text can be unreadable is a `WorkloadError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise WorkloadError(
            where, f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"
        ) from err
    except RecursionError as err:
        raise WorkloadError(where, "JSON nested too deeply (flatten the workload)") from err
    except ValueError as err:  # Python refuses integers of more than 4300 digits
        raise WorkloadError(
            where, "a number too long to read (thousands of digits); no field accepts it"
        ) from err


def load_workload_file(path: str | Path) -> Any:
    """Read workload JSON from a file; unreadable bytes or JSON become a `WorkloadError`."""
    where = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise WorkloadError(where, err.strerror or "cannot read file") from err
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise WorkloadError(
            where, f"not UTF-8 (byte {err.start}); save the workload as UTF-8 JSON"
        ) from err
    return parse_workload_text(text, where)


@dataclass(frozen=True)
class RunOutcome:
    """A run's trace plus why it stalled (None when every request finished)."""

    trace: dict[str, Any]
    stall: str | None


def run_outcome(
    data: Any, *, detail: bool = False, fast: bool = True, max_steps: int = DEFAULT_MAX_STEPS
) -> RunOutcome:
    """Validate `data`, check the bounds, simulate it; the trace and the stall reason.

    `fast` (default): the vectorised path wherever `sim.fast.fast_applies` (identical trace);
    False forces the plain reference loop.
    """
    workload = parse_workload(data)
    tokens_per_step = 1 + workload.engine.num_speculative_tokens  # a verify step emits up to 1 + k
    check_steps_possible(workload.engine, workload.requests, max_steps, tokens_per_step)
    result: SimResult | None = None
    if is_multi_instance(workload.engine):
        result = simulate_cluster(workload, detail=detail, max_steps=max_steps)
        return RunOutcome(build_trace(result, workload, detail=detail), result.stall)
    if fast and not detail:
        from sim.fast import fast_applies, simulate_fast

        if fast_applies(workload):
            result = simulate_fast(workload, max_steps=max_steps)
            return RunOutcome(build_trace(result, workload), result.stall)
    result = simulate(workload, detail=detail, max_steps=max_steps)
    return RunOutcome(build_trace(result, workload, detail=detail), result.stall)


def run_workload(
    data: Any, *, detail: bool = False, fast: bool = True, max_steps: int = DEFAULT_MAX_STEPS
) -> dict[str, Any]:
    """Validate `data`, simulate it, and return the trace dict (SIM.md contract).

    `fast` (default) uses the vectorised path where it applies (identical trace); False
    forces the plain reference loop. `detail` adds per-step blocks/reserved/computed/tokens and metadata.
    A stalled run still returns its trace (with ``"stalled": true``).
    """
    return run_outcome(data, detail=detail, fast=fast, max_steps=max_steps).trace
