"""The small public surface: run a workload (dict or file) and get the trace dict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.engine import simulate
from sim.errors import WorkloadError
from sim.trace import build_trace
from sim.workload import parse_workload


def load_workload_file(path: str | Path) -> Any:
    """Read workload JSON from a file (a JSON syntax error becomes a `WorkloadError`)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise WorkloadError(
            "$", f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"
        ) from err


def run_workload(data: Any, *, detail: bool = False, fast: bool = False) -> dict[str, Any]:
    """Validate `data`, simulate it, and return the trace dict (SIM.md contract).

    `fast` uses the vectorised path (identical trace; falls back to the plain loop where it
    does not apply). `detail` adds per-step blocks/reserved/computed/tokens and metadata.
    """
    workload = parse_workload(data)
    if fast and not detail:
        from sim.fast import fast_applies, simulate_fast

        if fast_applies(workload):
            return build_trace(simulate_fast(workload), workload)
    return build_trace(simulate(workload, detail=detail), workload, detail=detail)
