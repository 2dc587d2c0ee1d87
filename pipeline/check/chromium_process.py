"""The Chromium process behind `pipeline.check.browser`, and what Ctrl-C does while it works.

Chromium runs in a process group of its own, so the terminal's Ctrl-C reaches tujie only and
tujie stops the browser itself. (Sharing tujie's group, Chromium died of the same signal: every
pending DevTools call then failed by the screenful, and a relaunch could swallow the interrupt.)
Its DevTools address comes from the `DevToolsActivePort` file Chromium writes into its profile
(`--remote-debugging-port=0`: Chromium picks a free port itself, so there is no race for one, and
waiting for it never blocks the event loop).

`InterruptGuard` turns a SIGINT that arrives while the browser's event loop runs into "stop the
loop": nothing raises inside asyncio's or pyppeteer's code; the caller kills the browser, lets
the cancelled work unwind and raises `KeyboardInterrupt` itself.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

ACTIVE_PORT_FILE = "DevToolsActivePort"
ACTIVE_PORT = re.compile(r"(\d+)\n(/devtools/browser/[0-9a-f-]{36})\s*")
PORT_POLL_S = 0.02
EXIT_WAIT_S = 10.0  # a killed Chromium is gone within a second; then something is badly wrong
PROFILE_PREFIX = "tujie-chrome-"
MIN_FREE_BYTES = (
    16 * 1024 * 1024
)  # less than this free, and a profile or a screenshot cannot be written


@dataclass
class ChromiumProcess:
    """A started Chromium: its process (the leader of its own group), its throw-away profile and
    the DevTools WebSocket address to connect to."""

    process: subprocess.Popen[bytes]
    profile: Path
    endpoint: str

    def stop(self) -> None:
        """Kill Chromium and every helper process it started (the whole group: renderers, the
        zygote), reap it, and remove its profile. Safe to call twice."""
        if self.process.returncode is None:
            try:
                # The group outlives its leader until reaped: killing it before `wait` cannot hit
                # another process that reused the number.
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.process.wait(timeout=EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                pass  # unkillable (a process stuck in the kernel): nothing more can be done
        shutil.rmtree(self.profile, ignore_errors=True)


def _endpoint(profile: Path) -> str | None:
    try:
        text = (profile / ACTIVE_PORT_FILE).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    found = ACTIVE_PORT.fullmatch(text)  # a file still being written does not match yet
    return f"ws://127.0.0.1:{found.group(1)}{found.group(2)}" if found else None


async def start_chromium(
    executable: Path, args: Sequence[str], *, timeout: float
) -> ChromiumProcess:
    """Start `executable` with `args`, a fresh profile and DevTools on a port of its choosing;
    return once it listens. Raises RuntimeError when it exits or does not listen within
    `timeout` seconds (the caller retries once), and leaves no process or profile behind."""
    profile = Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX))
    command = [str(executable), *args, f"--user-data-dir={profile}", "--remote-debugging-port=0"]
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,  # its own group: the terminal's Ctrl-C is not sent to it
        )
    except OSError as err:
        shutil.rmtree(profile, ignore_errors=True)
        raise RuntimeError(f"cannot start {executable}: {err.strerror or err}") from None
    chromium = ChromiumProcess(process, profile, "")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        while True:
            endpoint = _endpoint(profile)
            if endpoint is not None:
                chromium.endpoint = endpoint
                return chromium
            if process.poll() is not None:
                raise RuntimeError(
                    f"Chromium exited (code {process.returncode}) before it opened DevTools"
                )
            if loop.time() > deadline:
                raise RuntimeError(f"Chromium did not open DevTools within {timeout:g} s")
            await asyncio.sleep(PORT_POLL_S)
    except BaseException:
        chromium.stop()
        raise


class InterruptGuard:
    """While armed around a run of an event loop, SIGINT only records itself (`hit`) and stops
    the loop at its next turn: the run returns to its caller, which stops the browser and raises
    KeyboardInterrupt itself. (Cancelling the running task instead could wait for ever: a page
    closing politely waits on an answer from a browser that is being stopped.)"""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.hit = False

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        self.hit = True
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.loop.stop)

    @contextmanager
    def armed(self) -> Iterator[None]:
        """Guard the block. Outside the main thread, or when SIGINT is ignored (a background
        job), signals are left alone."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.SIG_IGN:
            yield
            return
        signal.signal(signal.SIGINT, self._on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def low_disk(paths: Sequence[Path], min_free: int = MIN_FREE_BYTES) -> Path | None:
    """The first of `paths` (or its nearest existing parent) on a device with less than
    `min_free` bytes free: where a browser that died without a word could not write."""
    for path in paths:
        probe = path
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        try:
            if shutil.disk_usage(probe).free < min_free:
                return path
        except OSError:
            continue
    return None
