"""Command implementations behind `python -m sim`.

Exit codes: 0 ok; 1 the run stalled (the trace is still printed, the reason goes to stderr);
2 bad input or a bound passed (one line on stderr, nothing on stdout).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.api import load_workload_file, run_outcome
from sim.errors import SimError, WorkloadError
from sim.limits import DEFAULT_MAX_STEPS

EXIT_OK = 0
EXIT_STALLED = 1
EXIT_USAGE = 2


@dataclass(frozen=True)
class CommandOutput:
    """What a command prints: `text` on stdout (bytes: already UTF-8, e.g. a trace), and
    `stall` (if any) on stderr with exit 1."""

    text: str | bytes
    stall: str | None = None


def _workload_from_args(path: str | None, preset: str | None) -> Any:
    from sim.presets.scenarios import preset_workload

    if (path is None) == (preset is None):
        raise WorkloadError("$", "give a WORKLOAD file or --preset NAME (exactly one)")
    if preset is not None:
        return preset_workload(preset)
    assert path is not None
    return load_workload_file(path)


def cmd_run(
    path: str | None,
    preset: str | None,
    detail: bool,
    *,
    plain: bool = False,
    indent: bool = False,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> CommandOutput:
    """`run`: the JSON trace, compact unless `indent` (presets carry detail only with --detail).

    The fast path runs wherever it applies unless `plain` asks for the reference loop.
    """
    from sim.trace import encode

    outcome = run_outcome(
        _workload_from_args(path, preset), detail=detail, fast=not plain, max_steps=max_steps
    )
    return CommandOutput(encode(outcome.trace, indent=indent), outcome.stall)


def cmd_table(
    path: str | None,
    preset: str | None,
    max_steps: int = DEFAULT_MAX_STEPS,
    detail: bool = False,
) -> CommandOutput:
    """`table`: the human-readable step table (`detail`: draft totals, transfers)."""
    from sim.table import render_table

    outcome = run_outcome(_workload_from_args(path, preset), max_steps=max_steps)
    text = render_table(outcome.trace, title=preset or path, detail=detail)
    return CommandOutput(text.rstrip("\n"), outcome.stall)


def cmd_presets() -> str:
    """`presets`: one preset name per line with its title."""
    from sim.presets.scenarios import GOLDENS, SCENARIOS

    lines = [f"{sid}/{v}\t{sc.title}" for sid, sc in SCENARIOS.items() for v in ("without", "with")]
    lines += [f"{name}\t{w['scenario']['title']}" for name, w in GOLDENS.items()]
    return "\n".join(lines)


def cmd_sweep(
    n_requests: int | None,
    seed: int | None,
    rates: list[float] | None,
    workload_path: str | None,
) -> str:
    """`sweep`: the ruler (techniques), or with `rates` the latency-vs-load table."""
    from sim.presets.sweep import load_curve_workload, sweep

    if rates is None:
        if workload_path is not None:
            raise WorkloadError("--workload", "only with --rates")
        return json_text(sweep(n_requests=n_requests, seed=seed))
    from sim.load_curve import load_curve

    if workload_path is not None:
        workload = load_workload_file(workload_path)
    else:
        workload = load_curve_workload(n_requests, seed)
    return json_text(load_curve(workload, rates))


def cmd_train(path: str | None, preset: str | None, *, indent: bool = False) -> CommandOutput:
    """`train`: one training step (SIM-TRAINING.md) as one JSON object."""
    from sim.trace import encode
    from sim.training.presets import train_preset
    from sim.training.run import run_training

    if (path is None) == (preset is None):
        raise WorkloadError("$", "give a WORKLOAD file or --preset NAME (exactly one)")
    data = train_preset(preset) if preset is not None else load_workload_file(str(path))
    return CommandOutput(encode(run_training(data), indent=indent))


def cmd_train_presets() -> str:
    """`train --list`: one training preset name per line with its title."""
    from sim.training.presets import PRESETS

    return "\n".join(f"{name}\t{w['scenario']['title']}" for name, w in PRESETS.items())


def cmd_calibrate(write: bool) -> str:
    """`calibrate`: predicted vs measured for the calibration set (`write`: store the fit)."""
    from sim.cost.calibration_report import calibrate

    return calibrate(write=write)


def guarded(action: Callable[[], str | CommandOutput]) -> int:
    """Run a command; print its output, or ONE error line on stderr with exit code 2.

    A stalled run prints its output and then ``stalled before step N: why`` on stderr (exit 1).
    """
    try:
        output = action()
    except WorkloadError as err:
        print(f"error: {err.path}: {err.problem}", file=sys.stderr)
        return EXIT_USAGE
    except SimError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(output, str):
        output = CommandOutput(output)
    if isinstance(output.text, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(output.text + b"\n")
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(output.text + "\n")
    if output.stall:
        print(output.stall, file=sys.stderr)
        return EXIT_STALLED
    return EXIT_OK


def json_text(data: Any) -> str:
    """Pretty JSON for command output."""
    return json.dumps(data, ensure_ascii=False, indent=1)
