"""The one module that drives headless Chromium (through pyppeteer): find it, launch it, load a
page in a forced theme and width, and collect what the check needs (text boxes from the in-page
probe, platform fonts, axe results, network requests, console errors, a full-page screenshot).

Judging the collected data is `pipeline.check.run`'s job; this module only measures.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from pipeline import npm
from pipeline.check.measurement import THEMES, WIDTHS, Measurement, shot_name
from pipeline.check.timing import PhaseTimer
from pipeline.errors import EnvironmentMissing
from pipeline.paths import templates_dir

# pyppeteer must never download its own Chromium: we always pass executablePath, and this makes
# any accidental code path that would download fail instead.
os.environ.setdefault("PYPPETEER_SKIP_CHROMIUM_DOWNLOAD", "1")

from pyppeteer import launch  # noqa: E402  (the env var above must be set first)

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
NAVIGATION_TIMEOUT_MS = 30_000
EXIT_WAIT_S = 10.0  # Chromium exits within a second once closed; then it is killed
LAUNCH_ATTEMPTS = 2  # a crash or hang gets exactly one retry with a fresh profile
VIEWPORT_HEIGHT = 900
AXE_IMPACTS = ("serious", "critical")
PARALLEL_PAGES = 4  # pages measured at once (4 beat 2 on the 2-core machine, even under load)
FAST_PNG = True  # Page.captureScreenshot optimizeForSpeed (see _full_page_screenshot)

PROBE_FILE = "check_probe.js"
AXE_PACKAGE = "axe-core"

# Schemes that never leave the page: inline data, blobs built by the page, the blank document.
LOCAL_SCHEMES = ("data:", "blob:", "about:")


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


def axe_source() -> str:
    """axe-core's bundled script, from the npm cache (fetched there on first use; the page under
    test never loads anything from the network)."""
    path = npm.ensure_package(AXE_PACKAGE) / "axe.min.js"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        raise EnvironmentMissing(
            f"axe-core is missing ({path}); install it: {npm.install_hint(AXE_PACKAGE)}"
        ) from None


class Chrome:
    """A running headless Chromium with a synchronous face: each call runs on this object's own
    event loop, so one browser can be reused across many pages (and tests)."""

    def __init__(self, executable: Path | None = None) -> None:
        self.executable = executable or find_chrome()
        self._loop = asyncio.new_event_loop()
        self._browser: Any = None
        self._profile: str | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Chrome:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if not self._loop.is_closed():
            self._loop.run_until_complete(self._stop())
            self._loop.close()

    async def _start(self) -> None:
        await self._stop()
        self._profile = tempfile.mkdtemp(prefix="tujie-chrome-")
        args = [*CHROME_FLAGS, f"--user-data-dir={self._profile}"]
        self._browser = await asyncio.wait_for(
            launch(
                executablePath=str(self.executable),
                headless=True,
                args=args,
                loop=self._loop,
                autoClose=False,
                handleSIGINT=False,
                handleSIGTERM=False,
                handleSIGHUP=False,
            ),
            LAUNCH_TIMEOUT_S,
        )

    async def _stop(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            process = getattr(browser, "process", None)
            try:
                await asyncio.wait_for(browser.close(), LAUNCH_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - a dead browser cannot be closed politely
                pass
            if process is not None:
                # The profile can only be removed once Chromium stopped writing into it.
                try:
                    process.wait(timeout=EXIT_WAIT_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=EXIT_WAIT_S)
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    # -- the retrying entry points -----------------------------------------------------------

    def measure(
        self,
        html: Path,
        theme: str,
        width: int,
        *,
        screenshot: Path | None = None,
        probe: bool = True,
        axe: bool = True,
    ) -> Measurement:
        """Load `html` in `theme` at `width` px and collect everything (see `Measurement`).
        A crash or hang restarts Chromium with a fresh profile once, then gives up clearly."""
        job = _Job(html, theme, width, screenshot, probe, axe)
        return self._retrying(html, f"{theme}, {width}px", lambda timer: [job], PhaseTimer())[0]

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

        def jobs(timer: PhaseTimer) -> list[_Job]:
            out: list[_Job] = []
            for width in WIDTHS:
                pair = _Pair() if axe and probe else None
                for theme in THEMES:
                    shot = shots_dir / shot_name(theme, width) if shots_dir is not None else None
                    first = theme == THEMES[0]
                    out.append(_Job(html, theme, width, shot, probe, axe, pair, first))
            return out

        return self._retrying(html, "every theme and width", jobs, timer or PhaseTimer())

    def _retrying(
        self,
        html: Path,
        what: str,
        make_jobs: Callable[[PhaseTimer], list[_Job]],
        timer: PhaseTimer,
    ) -> list[Measurement]:
        last: BaseException | None = None
        for _attempt in range(LAUNCH_ATTEMPTS):
            try:
                return self._loop.run_until_complete(
                    asyncio.wait_for(self._run_jobs(make_jobs, timer), PAGE_TIMEOUT_S)
                )
            except EnvironmentMissing:
                raise
            except Exception as err:  # noqa: BLE001 - crash, hang or protocol error: retry once
                last = err
                self._loop.run_until_complete(self._stop())
        raise EnvironmentMissing(
            f"Chromium ({self.executable}) crashed or hung twice on {html.name} "
            f"({what}): {type(last).__name__}: {last}; check it runs: "
            f"{self.executable} --headless --no-sandbox --dump-dom about:blank"
        )

    async def _run_jobs(
        self, make_jobs: Callable[[PhaseTimer], list[_Job]], timer: PhaseTimer
    ) -> list[Measurement]:
        jobs = make_jobs(timer)  # made in the loop, with fresh futures for each attempt
        if self._browser is None:
            with timer.phase("launch"):
                await self._start()
        # The two themes of a width are adjacent in `jobs` and must run together (the second
        # waits for the first's keys), so at least two pages are open at once.
        gate = asyncio.Semaphore(max(2, PARALLEL_PAGES))

        async def gated(job: _Job) -> Measurement:
            async with gate:
                return await self._run_job(job, timer)

        return list(await asyncio.gather(*(gated(job) for job in jobs)))

    async def _run_job(self, job: _Job, timer: PhaseTimer) -> Measurement:
        # Each page gets a browser context of its own: it is then the foreground page of its own
        # window, so requestAnimationFrame fires and a screenshot completes while the other pages
        # work (a background tab of a shared window gets neither), and it runs in a renderer
        # process of its own, so the probes and axe of two pages use both cores.
        context = await self._browser.createIncognitoBrowserContext()
        try:
            page = await context.newPage()
            return await _measure_page(page, job, timer)
        except BaseException as err:
            job.fail(err)
            raise
        finally:
            try:
                await context.close()
            except Exception:  # noqa: BLE001 - the browser may be gone (crash): retried above
                pass


# axe's colour rules (tag `cat.color`: color-contrast, link-in-text-block) are the only ones that
# read colours; every other rule reads the DOM, ARIA, the layout (boxes, scrolling, target sizes)
# and the computed visibility and font styles. A theme switches colours through `data-theme` and
# prefers-color-scheme, but nothing stops a page's theme CSS (or script) from also hiding, moving
# or restyling things (the example's theme toggle shows a sun or a moon and sets aria-pressed).
# So the second theme of a width runs only the colour rules, and takes the first theme's other
# findings, when both themes have the same DOM (`DOM_KEY_JS`, without the theme attribute) and
# the same boxes and computed properties those rules read (`STYLE_KEY_JS`, only computed when
# the DOMs agree); otherwise it runs every rule itself.
_HASH_JS = """const hash = (str, seed) => {  // cyrb53
    let h1 = 0xdeadbeef ^ seed, h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < str.length; i++) {
      const c = str.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  };"""
DOM_KEY_JS = (
    "() => {\n  "
    + _HASH_JS
    + """
  const dom = document.documentElement.outerHTML
    .replace(/^(<html\\b[^>]*?)\\s+data-theme="[^"]*"/, '$1');
  return hash(dom, 1) + ':' + dom.length;
}"""
)
STYLE_KEY_JS = (
    "() => {\n  "
    + _HASH_JS
    + """
  const props = ['display', 'visibility', 'content-visibility', 'opacity', 'overflow-x',
    'overflow-y', 'clip-path', 'clip', 'font-size', 'font-weight', 'font-style',
    'pointer-events', 'cursor', 'white-space'];
  const parts = [];
  for (const el of document.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    parts.push(el.tagName, r.x.toFixed(1), r.y.toFixed(1), r.width.toFixed(1),
               r.height.toFixed(1), props.map(p => s.getPropertyValue(p)).join(' '));
  }
  const doc = document.documentElement;
  parts.push(doc.scrollWidth, doc.scrollHeight);
  return hash(parts.join('|'), 2) + ':' + parts.length;
}"""
)


def _future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()


@dataclass
class _Pair:
    """What the two themes of one width tell each other (see `DOM_KEY_JS`): the first's DOM key,
    whether the second wants the first's style key (the DOMs agree), that key, and the first's
    axe findings."""

    dom: asyncio.Future[str] = field(default_factory=_future)
    want_style: asyncio.Future[bool] = field(default_factory=_future)
    style: asyncio.Future[str] = field(default_factory=_future)
    axe: asyncio.Future[_AxeRun] = field(default_factory=_future)


@dataclass
class _AxeRun:
    violations: list[dict[str, Any]]
    colour_rules: list[str]  # the rules tagged cat.color that ran


@dataclass
class _Job:
    """One page to measure; `pair` links the two themes of one width (`first` is the one that
    runs every axe rule)."""

    html: Path
    theme: str
    width: int
    shot: Path | None
    probe: bool
    axe: bool
    pair: _Pair | None = None
    first: bool = True

    def fail(self, err: BaseException) -> None:
        """A page that failed must not leave the other theme of its width waiting."""
        if self.pair is None:
            return
        if not self.first:
            if not self.pair.want_style.done():
                self.pair.want_style.set_result(False)
            return
        for future in (self.pair.dom, self.pair.style, self.pair.axe):
            if not future.done():
                future.set_exception(RuntimeError(f"the {self.theme} page failed: {err}"))


async def _measure_page(page: Any, job: _Job, timer: PhaseTimer) -> Measurement:
    url = job.html.resolve().as_uri()
    theme, width = job.theme, job.width
    result = Measurement(theme=theme, width=width, probe={})
    client = page._client  # the page's DevTools session: pyppeteer lacks Fetch/CSS helpers
    with timer.phase("load"):
        _watch_network(page, client, url, result.requests)
        _watch_console(page, result.console_errors)
        await client.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        await client.send(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": theme}]},
        )
        await page.setViewport({"width": width, "height": VIEWPORT_HEIGHT, "deviceScaleFactor": 1})
        await page.goto(url, {"waitUntil": "load", "timeout": NAVIGATION_TIMEOUT_MS})
        await page.evaluate(
            """async (theme) => {
                document.documentElement.dataset.theme = theme;
                await document.fonts.ready;
                await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
            }""",
            theme,
        )
    if job.probe:
        with timer.phase("probe"):
            result.probe = await page.evaluate(_probe_source())
        with timer.phase("fonts"):
            result.fonts = await _platform_fonts(client, result.probe.get("fontTargets", []))
    same_layout = False
    if job.pair is not None:
        with timer.phase("layout-key"):
            dom = str(await page.evaluate(DOM_KEY_JS))
        if job.first:
            job.pair.dom.set_result(dom)
        else:
            same_layout = await _same_layout(page, job.pair, dom, timer)
    if job.shot is not None:
        with timer.phase("screenshot"):
            await _full_page_screenshot(client, width, job.shot)
        result.screenshot = job.shot
    if job.axe:
        result.axe = await _axe_for(page, job, same_layout, timer)
    if job.pair is not None and job.first and await job.pair.want_style:
        with timer.phase("layout-key"):
            job.pair.style.set_result(str(await page.evaluate(STYLE_KEY_JS)))
    return result


async def _same_layout(page: Any, pair: _Pair, dom: str, timer: PhaseTimer) -> bool:
    """Whether this (second) theme's page has the first's DOM, boxes and computed styles."""
    if await pair.dom != dom:
        pair.want_style.set_result(False)
        return False
    pair.want_style.set_result(True)
    with timer.phase("layout-key"):
        style = str(await page.evaluate(STYLE_KEY_JS))
    return await pair.style == style


async def _axe_for(
    page: Any, job: _Job, same_layout: bool, timer: PhaseTimer
) -> list[dict[str, Any]]:
    """axe's findings for this page: every rule, or (the second theme of a width with the same
    layout as the first) the colour rules here plus the first theme's other findings."""
    pair = job.pair
    if pair is None or job.first or not same_layout:
        with timer.phase("axe"):
            run = await _run_axe(page)
        if pair is not None and job.first:
            pair.axe.set_result(run)
        return run.violations
    first = await pair.axe
    with timer.phase("axe-colour"):
        own = await _run_axe(page, only=first.colour_rules)
    shared = [v for v in first.violations if v["id"] not in first.colour_rules]
    return shared + own.violations


def _watch_network(page: Any, client: Any, own_url: str, seen: list[str]) -> None:
    """Record every request except the page itself and local schemes, and fail it (Fetch),
    so a remote font or image can neither load nor stall the check."""

    def remember(url: str) -> None:
        if url != own_url and not url.startswith(LOCAL_SCHEMES) and url not in seen:
            seen.append(url)

    async def decide(event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        try:
            if url == own_url or url.startswith(LOCAL_SCHEMES):
                await client.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            else:
                remember(url)
                await client.send(
                    "Fetch.failRequest",
                    {"requestId": event["requestId"], "errorReason": "BlockedByClient"},
                )
        except Exception:  # noqa: BLE001 - the page may close while a request is paused
            pass

    client.on("Fetch.requestPaused", lambda event: asyncio.ensure_future(decide(event)))
    page.on("request", lambda request: remember(request.url))


def _watch_console(page: Any, errors: list[str]) -> None:
    def on_console(message: Any) -> None:
        # Blocked requests are reported once, as network-request problems, not twice.
        if message.type == "error" and "ERR_BLOCKED_BY_CLIENT" not in message.text:
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda err: errors.append(f"uncaught: {err}"))


def _probe_source() -> str:
    return (templates_dir() / PROBE_FILE).read_text(encoding="utf-8")


async def _platform_fonts(
    client: Any, targets: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """For each probe-tagged element, the fonts Chromium really used (CSS.getPlatformFontsForNode)."""
    if not targets:
        return {}
    await client.send("DOM.enable")
    await client.send("CSS.enable")
    root = await client.send("DOM.getDocument", {"depth": 0})
    root_id = root["root"]["nodeId"]
    # Every request is sent at once (DevTools answers them in order): one round trip per batch
    # instead of two per element.
    found = await asyncio.gather(
        *(
            client.send(
                "DOM.querySelector",
                {"nodeId": root_id, "selector": f'[data-tujie-probe="{target["probe"]}"]'},
            )
            for target in targets
        )
    )
    located = [(t, f["nodeId"]) for t, f in zip(targets, found, strict=True) if f.get("nodeId")]
    used = await asyncio.gather(
        *(client.send("CSS.getPlatformFontsForNode", {"nodeId": node}) for _t, node in located)
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for (target, _node), fonts in zip(located, used, strict=True):
        out[target["id"]] = [
            {"family": f.get("familyName", ""), "glyphs": int(f.get("glyphCount", 0))}
            for f in fonts.get("fonts", [])
        ]
    return out


async def _full_page_screenshot(client: Any, width: int, path: Path) -> None:
    """Capture the whole document at the current viewport width without resizing the viewport
    (pyppeteer's fullPage resizes it, which would re-trigger media queries and move things)."""
    metrics = await client.send("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    height = max(1, int(size["height"] + 0.999))
    # A page wider than the viewport is captured whole, so the overflow shows in the picture.
    width = max(width, int(size["width"] + 0.999))
    data = await client.send(
        "Page.captureScreenshot",
        {
            "format": "png",
            # Still a lossless PNG (the review diffs pixels), compressed with zlib's fastest
            # level: about a third larger, encoded several times faster.
            "optimizeForSpeed": FAST_PNG,
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        },
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(data["data"]))


async def _run_axe(page: Any, only: list[str] | None = None) -> _AxeRun:
    """axe-core violations of serious or critical impact (every rule axe runs by default, or
    `only` these), and which of the rules that ran are colour rules (tag `cat.color`).
    Evaluated through DevTools, which the page's Content-Security-Policy does not block (an
    injected <script> tag would be)."""
    await page.evaluate(axe_source(), force_expr=True)
    found: dict[str, Any] = await page.evaluate(
        """async (impacts, only) => {
            const options = {resultTypes: ['violations']};
            if (only) options.runOnly = {type: 'rule', values: only};
            const r = await axe.run(document, options);
            const ran = [...r.violations, ...r.passes, ...r.incomplete, ...r.inapplicable];
            const colour = ran.filter(v => v.tags.includes('cat.color')).map(v => v.id);
            const violations = r.violations.filter(v => impacts.includes(v.impact)).map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => {
                    const el = n.target.length === 1 ? document.querySelector(String(n.target[0])) : null;
                    const r = el ? el.getBoundingClientRect() : null;
                    const box = r && r.width > 0 ? [r.left + scrollX, r.top + scrollY, r.width, r.height] : null;
                    return {target: n.target.map(String), summary: n.failureSummary || '', box};
                })
            }));
            return {violations, colour: [...new Set(colour)].sort()};
        }""",
        list(AXE_IMPACTS),
        only,
    )
    return _AxeRun(found["violations"], found["colour"])


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
