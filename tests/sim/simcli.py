"""Run `python -m sim` as a user would (a real subprocess) from the repository root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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
