"""Command implementations behind `python -m sim`; errors become one line and exit code 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from sim.api import load_workload_file, run_workload
from sim.errors import SimError, WorkloadError

EXIT_OK = 0
EXIT_USAGE = 2


def _workload_from_args(path: str | None, preset: str | None) -> Any:
    from sim.scenarios import preset_workload

    if (path is None) == (preset is None):
        raise WorkloadError("$", "give a WORKLOAD file or --preset NAME (exactly one)")
    if preset is not None:
        return preset_workload(preset)
    assert path is not None
    try:
        return load_workload_file(path)
    except OSError as err:
        raise WorkloadError(path, err.strerror or "cannot read file") from err


def cmd_run(path: str | None, preset: str | None, detail: bool, fast: bool) -> str:
    """`run`: the JSON trace (presets carry detail only when --detail is given)."""
    from sim.trace import dumps

    trace = run_workload(_workload_from_args(path, preset), detail=detail, fast=fast)
    return dumps(trace)


def cmd_table(path: str | None, preset: str | None) -> str:
    """`table`: the human-readable step table."""
    from sim.table import render_table

    trace = run_workload(_workload_from_args(path, preset))
    return render_table(trace, title=preset or path).rstrip("\n")


def cmd_presets() -> str:
    """`presets`: one preset name per line with its title."""
    from sim.scenarios import GOLDENS, SCENARIOS

    lines = [f"{sid}/{v}\t{sc.title}" for sid, sc in SCENARIOS.items() for v in ("without", "with")]
    lines += [f"{name}\t{w['scenario']['title']}" for name, w in GOLDENS.items()]
    return "\n".join(lines)


def guarded(action: Callable[[], str]) -> int:
    """Run a command; print its output, or ONE error line on stderr with exit code 2."""
    try:
        text = action()
    except WorkloadError as err:
        print(f"error: {err.path}: {err.problem}", file=sys.stderr)
        return EXIT_USAGE
    except SimError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(text + "\n")
    return EXIT_OK


def json_text(data: Any) -> str:
    """Pretty JSON for command output."""
    return json.dumps(data, ensure_ascii=False, indent=1)
