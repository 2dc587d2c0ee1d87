"""The real `tujie` command in a subprocess, for the tests that judge what a user sees: its
exit code and its one error line (never a traceback), with the environment cleared of the
user's API settings."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-m", "pipeline.cli"]


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without the model's settings and tujie's own knobs (the
    cache stays the checkout's), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUJIE_"))}
    return env | (extra or {})


def tujie(
    *args: str, cwd: Path = REPO, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=clean_env(env),
        timeout=timeout,
        check=False,
    )


def start_tujie(
    *args: str, cwd: Path = REPO, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """`tujie` started in a session of its own (so a test can signal its whole group, as a
    terminal's Ctrl-C does), its stdout and stderr piped. It gets SIGINT as a foreground
    command does: a suite run in the background by a shell without job control (`.ci/run &`)
    inherits SIGINT ignored, and a Python started so never turns Ctrl-C into KeyboardInterrupt."""
    return subprocess.Popen(
        [*COMMAND, *args],
        cwd=cwd,
        env=clean_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_foreground_signals,
    )


def _foreground_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def one_error_line(stderr: str) -> str:
    """The one line a failure prints: exactly one non-blank line on stderr, starting with
    `error: ` (a "waiting for the lock" note aside), and no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("waiting ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]
