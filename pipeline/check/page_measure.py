"""Measuring the themes of one width in the browser (given a way to open pyppeteer pages; this
module imports no browser itself): the load, the probe, the platform fonts each text really
used, axe (shared across themes where it cannot differ, `pipeline.check.axe_rules`), the network
and console watchers, and the fast full-page screenshot. The second theme is switched to in the
loaded page when that is safe (`pipeline.check.themes`). `pipeline.check.browser` runs these for
every width."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import npm
from pipeline.atomic import write_atomic
from pipeline.check import themes
from pipeline.check.axe_rules import SHARED_RULES
from pipeline.check.bands import (
    FAST_PNG,
    BandStore,
    banded_screenshot,
    content_size,
    platform_fonts_fingerprint,
)
from pipeline.check.measurement import Measurement
from pipeline.check.platform_fonts import FontAnswers, platform_fonts
from pipeline.check.timing import PhaseTimer
from pipeline.errors import EnvironmentMissing
from pipeline.paths import templates_dir

NAVIGATION_TIMEOUT_MS = 30_000
VIEWPORT_HEIGHT = 900
AXE_IMPACTS = ("serious", "critical")
PROBE_FILE = "check_probe.js"
AXE_PACKAGE = "axe-core"
LOCAL_SCHEMES = ("data:", "blob:", "about:")


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


@dataclass
class PageJob:
    """One theme of one width to measure."""

    html: Path
    theme: str
    width: int
    shot: Path | None
    probe: bool
    axe: bool
    store: BandStore | None = None  # where screenshot bands are kept (default: the cache's)
    font_answers: FontAnswers | None = None  # platform fonts already asked by another page
    renderer: str = ""  # the browser's version, asked once for all pages


@dataclass
class AxeRun:
    violations: list[dict[str, Any]]
    ran: list[str]  # every rule that ran


@dataclass
class Showing:
    """The measurement of the theme a page shows now: its requests and console errors go there
    (after a theme switch, those the switch caused are the new theme's)."""

    m: Measurement


@dataclass
class FirstTheme:
    """What a later theme of the same width may share with the first: its keys and axe run."""

    keys: themes.Keys
    axe: AxeRun


OpenPage = Callable[[], Awaitable[Any]]


async def measure_width(
    open_page: OpenPage, jobs: list[PageJob], timer: PhaseTimer
) -> list[Measurement]:
    """The themes of one width, in order: the first loaded, each next one switched to at run
    time in the same page when `themes.switch` finds that safe, else loaded fresh in a page of
    its own (`open_page`)."""
    out: list[Measurement] = []
    page: Any = None
    showing: Showing | None = None
    first: FirstTheme | None = None
    for job in jobs:
        result = Measurement(theme=job.theme, width=job.width, probe={}, renderer=job.renderer)
        if page is None or showing is None or not await themes.switch(page, job.theme, timer):
            page, showing = await open_page(), Showing(result)
            await _load(page, job, showing, timer)
        showing.m = result
        mine = await _measure_shown(page, job, result, first, len(jobs) > 1, timer)
        first = first or mine
        out.append(result)
    return out


async def _measure_shown(
    page: Any,
    job: PageJob,
    result: Measurement,
    first: FirstTheme | None,
    keyed: bool,
    timer: PhaseTimer,
) -> FirstTheme | None:
    """Measure the theme the page shows now into `result`. A theme whose layout keys equal the
    `first` theme's takes its findings of the rules in `SHARED_RULES` instead of running them;
    returns what a later theme may share with this one."""
    await _probe(page, job, result, timer)
    keys = await themes.keys(page, timer) if keyed and job.probe and job.axe else None
    if job.shot is not None:
        with timer.phase("screenshot"):
            await _screenshot(page, job, timer)
        result.screenshot = job.shot
    if not job.axe:
        return None
    share = first is not None and keys is not None and keys == first.keys
    run = await _axe_for(page, first.axe if share and first is not None else None, timer)
    result.axe = run.violations
    return FirstTheme(keys, run) if keys is not None else None


async def _load(page: Any, job: PageJob, showing: Showing, timer: PhaseTimer) -> None:
    """Load the page in `job`'s theme and width, with the network and console watched."""
    url = job.html.resolve().as_uri()
    client = page._client  # the page's DevTools session: pyppeteer lacks Fetch/CSS helpers
    with timer.phase("load"):
        watch_network(page, client, url, lambda: showing.m.requests)
        watch_console(page, lambda: showing.m.console_errors)
        await client.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        await themes.emulate(page, job.theme)
        await page.setViewport(
            {"width": job.width, "height": VIEWPORT_HEIGHT, "deviceScaleFactor": 1}
        )
        await page.goto(url, {"waitUntil": "load", "timeout": NAVIGATION_TIMEOUT_MS})
        await page.evaluate(themes.SETTLE_JS, job.theme)


async def _probe(page: Any, job: PageJob, result: Measurement, timer: PhaseTimer) -> None:
    if not job.probe:
        return
    with timer.phase("probe"):
        result.probe = await page.evaluate(_probe_source())
    with timer.phase("fonts"):
        targets = result.probe.get("fontTargets", [])
        result.fonts, asked = await platform_fonts(page, targets, job.font_answers)
        timer.count("font questions", asked)
        timer.count("font targets", len(targets))


async def _axe_for(page: Any, first: AxeRun | None, timer: PhaseTimer) -> AxeRun:
    """axe's findings for this page: every rule, or (a later theme with the first's DOM and
    layout) the rules not in `SHARED_RULES` here plus the first theme's findings of the rest."""
    if first is None:
        with timer.phase("axe"):
            return await _run_axe(page)
    with timer.phase("axe-colour"):  # the colour, ARIA and hidden-element rules
        own = await _run_axe(page, only=[r for r in first.ran if r not in SHARED_RULES])
    shared = [v for v in first.violations if v["id"] in SHARED_RULES]
    return AxeRun(shared + own.violations, first.ran)


def watch_network(
    page: Any, client: Any, own_url: str, seen: Callable[[], list[str]], allowed: Sequence[str] = ()
) -> None:
    """Record (into the list `seen` gives now) every request except the page itself, local
    schemes and URLs under `allowed`, and fail it (Fetch), so a remote font or image can
    neither load nor stall the check."""
    own = (*LOCAL_SCHEMES, *allowed)

    def remember(url: str) -> None:
        if url != own_url and not url.startswith(own) and url not in seen():
            seen().append(url)

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


def watch_console(page: Any, errors: Callable[[], list[str]]) -> None:
    """Record console errors and uncaught exceptions into the list `errors` gives now."""

    def on_console(message: Any) -> None:
        # Blocked requests are reported once, as network-request problems, not twice.
        if message.type == "error" and "ERR_BLOCKED_BY_CLIENT" not in message.text:
            errors().append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda err: errors().append(f"uncaught: {err}"))


def _probe_source() -> str:
    return (templates_dir() / PROBE_FILE).read_text(encoding="utf-8")


async def _screenshot(page: Any, job: PageJob, timer: PhaseTimer) -> None:
    """The full page as a PNG: in bands reused where unchanged (`pipeline.check.bands`), or,
    for a page wider than the viewport (broken, and shown whole), in one capture."""
    assert job.shot is not None
    client = page._client
    content_width, height = await content_size(client)
    if content_width > job.width + 0.5:
        await _full_page_screenshot(client, int(content_width + 0.999), height, job.shot)
        timer.count("bands captured", 1)
        timer.count("bands", 1)
        return
    context = {
        "browser": job.renderer,
        "fonts": platform_fonts_fingerprint(),
        "theme": job.theme,
        "width": job.width,
    }
    stats = await banded_screenshot(
        page, job.width, VIEWPORT_HEIGHT, job.shot, job.store or BandStore(), context
    )
    timer.count("bands", stats.bands)
    timer.count("bands captured", stats.captured)


async def _full_page_screenshot(client: Any, width: int, height: int, path: Path) -> None:
    """Capture the whole `width` x `height` document in one go, without resizing the viewport
    (pyppeteer's fullPage resizes it, which would re-trigger media queries and move things): a
    page wider than the viewport is captured whole, so the overflow shows in the picture."""
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
    write_atomic(path, base64.b64decode(data["data"]))


async def _run_axe(page: Any, only: list[str] | None = None) -> AxeRun:
    """axe-core violations of serious or critical impact (every rule axe runs by default, or
    `only` these), and which rules ran.
    Evaluated through DevTools, which the page's Content-Security-Policy does not block (an
    injected <script> tag would be)."""
    await page.evaluate(axe_source(), force_expr=True)
    found: dict[str, Any] = await page.evaluate(
        """async (impacts, only) => {
            const options = {resultTypes: ['violations']};
            if (only) options.runOnly = {type: 'rule', values: only};
            const r = await axe.run(document, options);
            const ran = [...r.violations, ...r.passes, ...r.incomplete, ...r.inapplicable];
            const violations = r.violations.filter(v => impacts.includes(v.impact)).map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => {
                    const el = n.target.length === 1 ? document.querySelector(String(n.target[0])) : null;
                    const r = el ? el.getBoundingClientRect() : null;
                    const box = r && r.width > 0 ? [r.left + scrollX, r.top + scrollY, r.width, r.height] : null;
                    return {target: n.target.map(String), summary: n.failureSummary || '', box};
                })
            }));
            return {violations, ran: [...new Set(ran.map(v => v.id))].sort()};
        }""",
        list(AXE_IMPACTS),
        only,
    )
    return AxeRun(found["violations"], found["ran"])
