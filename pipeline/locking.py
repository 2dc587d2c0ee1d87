"""One process at a time per folder: a build (or a publish reading it) holds
`output/<name>/.build.lock`, a publish holds `<site>/.publish.lock`.

The lock is an `fcntl.flock` on the open lock file, so the kernel releases it when the holder
exits, even under kill -9: there is no stale lock to guess about. The holder writes its pid into
the file so that a process waiting for it can say whom it waits for.
"""

from __future__ import annotations

import fcntl
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.errors import LockHeld, OutputError, UsageError

LOCK_WAIT_ENV = "TUJIE_LOCK_WAIT"
DEFAULT_LOCK_WAIT_S = 60.0  # how long a second build or publish waits before giving up
LOCK_POLL_S = 0.05
LOCK_FILE_MODE = 0o644


def lock_wait_seconds() -> float:
    """The wait from `$TUJIE_LOCK_WAIT` (seconds, 0 = do not wait), else the default."""
    raw = os.environ.get(LOCK_WAIT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_LOCK_WAIT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"{LOCK_WAIT_ENV}={raw!r} is not a number of seconds (0 or more)")
    return value


def lock_holder(path: Path) -> str:
    """Who holds the lock, as written in the lock file: "pid N" (or "pid unknown")."""
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        text = ""
    return f"pid {text}" if text.isdigit() else "pid unknown"


def _open_lock_file(path: Path) -> int:
    try:
        # O_NOFOLLOW: a symlink planted at the lock's place must not make us create files elsewhere
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        return os.open(path, flags, LOCK_FILE_MODE)
    except OSError as err:
        raise OutputError(
            f"{path}: cannot open the lock file ({err.strerror or err}); check the folder"
        ) from None


def _acquire(fd: int, path: Path, purpose: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    announced = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        holder = lock_holder(path)
        if time.monotonic() >= deadline:
            raise LockHeld(
                f"another {purpose} is running ({holder} holds {path}); "
                f"wait for it to finish or stop it, then try again"
            )
        if not announced:
            print(
                f"waiting up to {wait:g} s for another {purpose} ({holder} holds {path})",
                file=sys.stderr,
                flush=True,
            )
            announced = True
        time.sleep(LOCK_POLL_S)


@contextmanager
def held_lock(path: Path, *, purpose: str, wait: float | None = None) -> Iterator[None]:
    """Hold the exclusive lock `path` (created if needed; its folder must exist) for the block.

    Waits up to `wait` seconds (default: `lock_wait_seconds()`) for another holder, then raises
    `LockHeld` naming the holder's pid and the lock file. `purpose` completes "another … is
    running", e.g. "publish to output/site".
    """
    seconds = lock_wait_seconds() if wait is None else wait
    fd = _open_lock_file(path)
    try:
        _acquire(fd, path, purpose, seconds)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # still held here: nobody else has written their pid yet
    finally:
        os.close(fd)  # closing the last descriptor releases the flock
