"""Run `python -m sim` as a user would (a real subprocess) from the repository root; the
trace JSON Schema the tests validate against."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRACE_SCHEMA = json.loads((REPO / "sim" / "trace.schema.json").read_text(encoding="utf-8"))


def sim_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m sim ARGS`; never raises on a non-zero exit (the tests check it)."""
    return subprocess.run(
        [sys.executable, "-m", "sim", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        check=False,
    )
