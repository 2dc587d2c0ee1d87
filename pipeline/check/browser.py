"""The one module that drives headless Chromium (through pyppeteer): find it, launch it, load a
page in a forced theme and width, and collect what the check needs (text boxes from the in-page
probe, platform fonts, axe results, network requests, console errors, a full-page screenshot);
and visit a page step by step (scripts, key presses, screenshots), as the review's test does.

Judging the collected data is `pipeline.check.run`'s job; this module only measures.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pipeline import npm
from pipeline.check.measurement import THEMES, WIDTHS, Measurement
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

    # -- the one retrying entry point ---------------------------------------------------------

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
        last: BaseException | None = None
        for _attempt in range(LAUNCH_ATTEMPTS):
            try:
                return self._loop.run_until_complete(
                    asyncio.wait_for(
                        self._measure(html, theme, width, screenshot, probe, axe), PAGE_TIMEOUT_S
                    )
                )
            except EnvironmentMissing:
                raise
            except Exception as err:  # noqa: BLE001 - crash, hang or protocol error: retry once
                last = err
                self._loop.run_until_complete(self._stop())
        raise EnvironmentMissing(
            f"Chromium ({self.executable}) crashed or hung twice on {html.name} "
            f"({theme}, {width}px): {type(last).__name__}: {last}; check it runs: "
            f"{self.executable} --headless --no-sandbox --dump-dom about:blank"
        )

    def visit(
        self, html: Path, steps: Sequence[Step], *, width: int = 1280, height: int = VIEWPORT_HEIGHT
    ) -> Visit:
        """Load `html` (its own folder's files may load, nothing else) in a `width` x `height`
        viewport and take `steps` in order: `("eval", js)` keeps the value, `("key", "j")`
        presses a key, `("shot", path)` saves the viewport as a PNG."""
        return self._loop.run_until_complete(
            asyncio.wait_for(self._visit(html, steps, width, height), PAGE_TIMEOUT_S)
        )

    async def _visit(self, html: Path, steps: Sequence[Step], width: int, height: int) -> Visit:
        if self._browser is None:
            await self._start()
        page = await self._browser.newPage()
        try:
            url = html.resolve().as_uri()
            out = Visit()
            client = page._client
            _watch_network(page, client, url, out.requests, allowed=(url.rsplit("/", 1)[0] + "/",))
            _watch_console(page, out.console_errors)
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
            await page.close()

    async def _measure(
        self,
        html: Path,
        theme: str,
        width: int,
        shot: Path | None,
        probe: bool,
        axe: bool,
    ) -> Measurement:
        if self._browser is None:
            await self._start()
        page = await self._browser.newPage()
        try:
            result = await _measure_page(page, html, theme, width, shot, probe, axe)
            result.renderer = str(await self._browser.version())
            return result
        finally:
            await page.close()


async def _measure_page(
    page: Any, html: Path, theme: str, width: int, shot: Path | None, probe: bool, axe: bool
) -> Measurement:
    url = html.resolve().as_uri()
    result = Measurement(theme=theme, width=width, probe={})
    client = page._client  # the page's DevTools session: pyppeteer lacks Fetch/CSS helpers
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
    if probe:
        result.probe = await page.evaluate((templates_dir() / PROBE_FILE).read_text(encoding="utf-8"))
        result.fonts = await _platform_fonts(client, result.probe.get("fontTargets", []))
    if shot is not None:
        await _full_page_screenshot(client, width, shot)
        result.screenshot = shot
    if axe:
        result.axe = await _run_axe(page)
    return result


def _watch_network(
    page: Any, client: Any, own_url: str, seen: list[str], allowed: Sequence[str] = ()
) -> None:
    """Record every request except the page itself, local schemes and URLs under `allowed`,
    and fail it (Fetch), so a remote font or image can neither load nor stall the check."""
    own = (*LOCAL_SCHEMES, *allowed)

    def remember(url: str) -> None:
        if url != own_url and not url.startswith(own) and url not in seen:
            seen.append(url)

    async def decide(event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        try:
            if url == own_url or url.startswith(own):
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


async def _platform_fonts(
    client: Any, targets: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """For each probe-tagged element, the fonts Chromium really used (CSS.getPlatformFontsForNode)."""
    if not targets:
        return {}
    await client.send("DOM.enable")
    await client.send("CSS.enable")
    root = await client.send("DOM.getDocument", {"depth": 0})
    out: dict[str, list[dict[str, Any]]] = {}
    for target in targets:
        found = await client.send(
            "DOM.querySelector",
            {
                "nodeId": root["root"]["nodeId"],
                "selector": f'[data-tujie-probe="{target["probe"]}"]',
            },
        )
        if not found.get("nodeId"):
            continue
        fonts = await client.send("CSS.getPlatformFontsForNode", {"nodeId": found["nodeId"]})
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
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        },
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(data["data"]))


async def _run_axe(page: Any) -> list[dict[str, Any]]:
    """axe-core violations of serious or critical impact. Evaluated through DevTools, which the
    page's Content-Security-Policy does not block (an injected <script> tag would be)."""
    await page.evaluate(axe_source(), force_expr=True)
    found: list[dict[str, Any]] = await page.evaluate(
        """async (impacts) => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.filter(v => impacts.includes(v.impact)).map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => {
                    const el = n.target.length === 1 ? document.querySelector(String(n.target[0])) : null;
                    const r = el ? el.getBoundingClientRect() : null;
                    const box = r && r.width > 0 ? [r.left + scrollX, r.top + scrollY, r.width, r.height] : null;
                    return {target: n.target.map(String), summary: n.failureSummary || '', box};
                })
            }));
        }""",
        list(AXE_IMPACTS),
    )
    return found


def screenshots(html: Path, shots_dir: Path, *, chrome: Chrome | None = None) -> list[Path]:
    """Full-page PNGs `<theme>-<width>.png` for both themes at 1280 and 390 px."""
    own = chrome is None
    browser = chrome or Chrome()
    try:
        out = []
        for width in WIDTHS:
            for theme in THEMES:
                path = shots_dir / f"{theme}-{width}.png"
                browser.measure(html, theme, width, screenshot=path, probe=False, axe=False)
                out.append(path)
        return out
    finally:
        if own:
            browser.close()
