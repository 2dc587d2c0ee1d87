"""The one module that drives headless Chromium (through pyppeteer): find it, launch it, load a
page in a forced theme and width, and collect what the check needs (text boxes from the in-page
probe, platform fonts, axe results, network requests, console errors, a full-page screenshot);
and visit a page step by step (scripts, key presses, screenshots), as the review's test does.

Judging the collected data is `pipeline.check.run`'s job; this module only measures.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import tempfile
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

from pipeline.check.bands import BandStore
from pipeline.check.chromium_process import (
    ChromiumProcess,
    InterruptGuard,
    low_disk,
    start_chromium,
)
from pipeline.check.measurement import THEMES, WIDTHS, Measurement, shot_name
from pipeline.check.page_measure import (
    NAVIGATION_TIMEOUT_MS,
    VIEWPORT_HEIGHT,
    PageJob,
    ThemePair,
    measure_page,
    watch_console,
    watch_network,
)
from pipeline.check.platform_fonts import FontAnswers
from pipeline.check.timing import PhaseTimer
from pipeline.errors import EnvironmentMissing, TujieError, disk_full, is_disk_full
from pipeline.paths import cache_dir

# pyppeteer must never download its own Chromium: we always pass executablePath, and this makes
# any accidental code path that would download fail instead.
os.environ.setdefault("PYPPETEER_SKIP_CHROMIUM_DOWNLOAD", "1")

from pyppeteer import connect  # noqa: E402  (the env var above must be set first)
from pyppeteer.launcher import defaultArgs  # noqa: E402

from pipeline.envsetup import CHROME_ENV, INSTALL_HINT, is_executable, locate_chrome  # noqa: E402

CHROME_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
LAUNCH_TIMEOUT_S = 30.0  # starting Chromium; a cold start on a slow disk takes a few seconds
PAGE_TIMEOUT_S = 90.0  # one load + probe + fonts + axe + screenshot of a long page
CLOSE_TIMEOUT_S = 5.0  # asking Chromium to close politely; then it is killed
ABANDON_WAIT_S = 2.0  # after Ctrl-C, for the cancelled DevTools calls to unwind
LAUNCH_ATTEMPTS = 2  # a crash or hang gets exactly one retry with a fresh profile
PARALLEL_PAGES = 4  # pages measured at once (4 beat 2 on the 2-core machine, even under load)
LOG = logging.getLogger(__name__)
Result = TypeVar("Result")

# pyppeteer and websockets log a dying connection at warning level and up; with no handler of
# their own those lines reach stderr through logging's last resort, around the one error line.
for _name in ("pyppeteer", "websockets"):
    logging.getLogger(_name).addHandler(logging.NullHandler())


def _quiet_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """When a page or the browser dies, pyppeteer leaves futures failing behind (each would
    print "Future exception was never retrieved"): the retry, or the one error line, says what
    happened, so they only go to the debug log."""
    LOG.debug("browser loop: %s", context.get("message"), exc_info=context.get("exception"))


def find_chrome(candidates: Sequence[str] | None = None) -> Path:
    """The Chromium/Chrome executable (`pipeline.envsetup.locate_chrome`): `CHROME_PATH`, else
    the usual paths, then PATH. `candidates=[]` means "no defaults" (tests)."""
    wanted = os.environ.get(CHROME_ENV)
    if wanted and not is_executable(wanted):
        # An explicit setting that is wrong is an error, not a hint to silently use another one.
        raise EnvironmentMissing(
            f"{CHROME_ENV}={wanted} is not an executable Chromium; fix or unset it, "
            f"or install one: {INSTALL_HINT}"
        )
    found = locate_chrome(candidates)
    if found is None:
        raise EnvironmentMissing(f"no Chromium or Chrome found; install one: {INSTALL_HINT}")
    return Path(found)


Step = tuple[Literal["eval", "key", "shot"], str]


@dataclass
class Visit:
    """What a visit saw: each `eval` step's value, console errors (a CSP violation is one),
    and the requests it made outside the page's folder (all failed)."""

    values: list[Any] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


class Chrome:
    """A running headless Chromium with a synchronous face: each call runs on this object's own
    event loop, so one browser can be reused across many pages (and tests)."""

    def __init__(self, executable: Path | None = None) -> None:
        self.executable = executable or find_chrome()
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(_quiet_loop_error)
        self._interrupt = InterruptGuard(self._loop)
        self._browser: Any = None
        self._chromium: ChromiumProcess | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Chrome:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if not self._loop.is_closed():
            try:
                self._run(self._stop())
            finally:
                self._drain()
                self._loop.close()
            if self._interrupt.hit:  # a Ctrl-C while the last pages unwound: not lost
                self._interrupt.hit = False
                raise KeyboardInterrupt

    def _run(self, work: Coroutine[Any, Any, Result]) -> Result:
        """Run `work` on this browser's loop. A Ctrl-C meanwhile stops the loop: Chromium is
        then killed and KeyboardInterrupt raised here, never inside asyncio's or pyppeteer's
        code (where it surfaced as screens of failed futures, or was lost in a relaunch)."""
        task = self._loop.create_task(work)
        try:
            with self._interrupt.armed():
                result = self._loop.run_until_complete(task)
        except BaseException as err:
            if not (self._interrupt.hit or isinstance(err, KeyboardInterrupt)):
                raise
            self._abandon()
            raise KeyboardInterrupt from None
        if self._interrupt.hit:  # it came as the work finished
            self._abandon()
            raise KeyboardInterrupt
        return result

    def _abandon(self) -> None:
        """After Ctrl-C: kill Chromium (no polite close: whatever waits on it fails at once),
        then let what still runs on the loop unwind; a second Ctrl-C meanwhile waits for it."""
        with self._interrupt.armed():
            self._browser = None
            chromium, self._chromium = self._chromium, None
            if chromium is not None:
                chromium.stop()
            self._drain()
        self._interrupt.hit = False

    def _drain(self) -> None:
        """Cancel what still runs on the loop (the other pages of a run that failed, pyppeteer's
        reader) and let it unwind, so no coroutine is left half-done for the garbage collector
        to report as a traceback when the loop closes."""
        pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending and not self._loop.is_closed():
            with self._interrupt.armed():  # a Ctrl-C now only waits for these few seconds
                self._loop.run_until_complete(asyncio.wait(pending, timeout=ABANDON_WAIT_S))

    async def _start(self) -> None:
        await self._stop()
        # pyppeteer's own launch flags (headless, no extensions, ...) plus ours; its launcher is
        # not used: it blocks the loop while it polls for DevTools, and shares our process group.
        args = defaultArgs({"headless": True, "args": list(CHROME_FLAGS)})
        chromium = await start_chromium(self.executable, args, timeout=LAUNCH_TIMEOUT_S)
        self._chromium = chromium
        self._browser = await asyncio.wait_for(
            connect(browserWSEndpoint=chromium.endpoint, loop=self._loop), LAUNCH_TIMEOUT_S
        )

    async def _stop(self) -> None:
        browser, self._browser = self._browser, None
        chromium, self._chromium = self._chromium, None
        if browser is not None:
            for farewell in (browser.close, browser.disconnect):
                try:
                    await asyncio.wait_for(farewell(), CLOSE_TIMEOUT_S)
                except Exception:  # noqa: BLE001 - a dead browser cannot be closed politely
                    pass
        if chromium is not None:
            chromium.stop()  # its helpers too, and the profile once nothing writes into it

    # -- the retrying entry points -----------------------------------------------------------

    def visit(
        self, html: Path, steps: Sequence[Step], *, width: int = 1280, height: int = VIEWPORT_HEIGHT
    ) -> Visit:
        """Load `html` (its own folder's files may load, nothing else) in a `width` x `height`
        viewport and take `steps` in order: `("eval", js)` keeps the value, `("key", "j")`
        presses a key, `("shot", path)` saves the viewport as a PNG."""
        return self._run(asyncio.wait_for(self._visit(html, steps, width, height), PAGE_TIMEOUT_S))

    async def _visit(self, html: Path, steps: Sequence[Step], width: int, height: int) -> Visit:
        if self._browser is None:
            await self._start()
        page = await self._browser.newPage()
        try:
            url = html.resolve().as_uri()
            out = Visit()
            client = page._client
            watch_network(page, client, url, out.requests, allowed=(url.rsplit("/", 1)[0] + "/",))
            watch_console(page, out.console_errors)
            await client.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
            await page.setViewport({"width": width, "height": height, "deviceScaleFactor": 1})
            await page.goto(url, {"waitUntil": "load", "timeout": NAVIGATION_TIMEOUT_MS})
            for kind, arg in steps:
                if kind == "eval":
                    out.values.append(await page.evaluate(arg, force_expr=True))
                elif kind == "key":
                    await page.keyboard.press(arg)
                else:
                    await page.screenshot({"path": arg})
            return out
        finally:
            await _close_quietly(page)

    def measure(
        self,
        html: Path,
        theme: str,
        width: int,
        *,
        screenshot: Path | None = None,
        probe: bool = True,
        axe: bool = True,
        store: BandStore | None = None,
        timer: PhaseTimer | None = None,
    ) -> Measurement:
        """Load `html` in `theme` at `width` px and collect everything (see `Measurement`);
        the screenshot's unchanged bands come from `store` (default: the cache's).
        A crash or hang restarts Chromium with a fresh profile once, then gives up clearly."""
        job = PageJob(html, theme, width, screenshot, probe, axe, store=store)
        return self._retrying(
            html, f"{theme}, {width}px", lambda timer: [job], timer or PhaseTimer()
        )[0]

    def measure_layouts(
        self,
        html: Path,
        *,
        shots_dir: Path | None = None,
        probe: bool = True,
        axe: bool = True,
        timer: PhaseTimer | None = None,
    ) -> list[Measurement]:
        """Every theme at every width (`WIDTHS` x `THEMES`, in that order), measured at once in
        concurrent pages; full-page PNGs `<theme>-<width>.png` into `shots_dir` when given."""

        def jobs(timer: PhaseTimer) -> list[PageJob]:
            out: list[PageJob] = []
            answers = FontAnswers()  # every page loads the same file: fonts asked once
            for width in WIDTHS:
                pair = ThemePair() if axe and probe else None
                for theme in THEMES:
                    shot = shots_dir / shot_name(theme, width) if shots_dir is not None else None
                    first = theme == THEMES[0]
                    job = PageJob(html, theme, width, shot, probe, axe, pair, first)
                    job.font_answers = answers
                    out.append(job)
            return out

        return self._retrying(html, "every theme and width", jobs, timer or PhaseTimer())

    def _retrying(
        self,
        html: Path,
        what: str,
        make_jobs: Callable[[PhaseTimer], list[PageJob]],
        timer: PhaseTimer,
    ) -> list[Measurement]:
        last: BaseException | None = None
        for _attempt in range(LAUNCH_ATTEMPTS):
            try:
                return self._run(asyncio.wait_for(self._run_jobs(make_jobs, timer), PAGE_TIMEOUT_S))
            except TujieError:
                raise  # something missing, a full disk: named as such, not retried as a crash
            except Exception as err:  # noqa: BLE001 - crash, hang or protocol error: retry once
                if isinstance(err, OSError) and is_disk_full(err):
                    raise disk_full(err.filename or html.parent, err) from None
                last = err
                self._run(self._stop())
                self._drain()  # the other pages of the failed attempt
        full = low_disk([Path(tempfile.gettempdir()), cache_dir(), html.parent])
        if full is not None:  # Chromium dies without a word when it cannot write its profile
            raise disk_full(full, OSError(errno.ENOSPC, "almost no space left"))
        raise EnvironmentMissing(
            f"Chromium ({self.executable}) crashed or hung twice on {html.name} "
            f"({what}): {type(last).__name__}: {last}; check it runs: "
            f"{self.executable} --headless --no-sandbox --dump-dom about:blank"
        )

    async def _run_jobs(
        self, make_jobs: Callable[[PhaseTimer], list[PageJob]], timer: PhaseTimer
    ) -> list[Measurement]:
        jobs = make_jobs(timer)  # made in the loop, with fresh futures for each attempt
        if self._browser is None:
            with timer.phase("launch"):
                await self._start()
        version = str(await self._browser.version())  # once: every page reports it
        for job in jobs:
            job.renderer = version
        # The two themes of a width are adjacent in `jobs` and must run together (the second
        # waits for the first's keys), so at least two pages are open at once.
        gate = asyncio.Semaphore(max(2, PARALLEL_PAGES))

        async def gated(job: PageJob) -> Measurement:
            async with gate:
                return await self._run_job(job, timer)

        return list(await asyncio.gather(*(gated(job) for job in jobs)))

    async def _run_job(self, job: PageJob, timer: PhaseTimer) -> Measurement:
        # Each page gets a browser context of its own: it is then the foreground page of its own
        # window, so requestAnimationFrame fires and a screenshot completes while the other pages
        # work (a background tab of a shared window gets neither), and it runs in a renderer
        # process of its own, so the probes and axe of two pages use both cores.
        context = await self._browser.createIncognitoBrowserContext()
        try:
            page = await context.newPage()
            return await measure_page(page, job, timer)
        except BaseException as err:
            job.fail(err)
            raise
        finally:
            await _close_quietly(context)


async def _close_quietly(target: Any) -> None:
    """Close a page or a browser context, if the browser still answers soon: a crashed one
    never does (the retry starts afresh), and nothing may wait on it for ever."""
    try:
        await asyncio.wait_for(target.close(), CLOSE_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - the browser may be gone: nothing more to close
        pass


def screenshots(html: Path, shots_dir: Path, *, chrome: Chrome | None = None) -> list[Path]:
    """Full-page PNGs `<theme>-<width>.png` for both themes at 1280 and 390 px."""
    own = chrome is None
    browser = chrome or Chrome()
    try:
        taken = browser.measure_layouts(html, shots_dir=shots_dir, probe=False, axe=False)
        return [m.screenshot for m in taken if m.screenshot is not None]
    finally:
        if own:
            browser.close()
