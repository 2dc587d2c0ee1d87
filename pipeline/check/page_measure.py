"""Measuring one page in the browser (given a pyppeteer page object; this module imports no
browser itself): the probe, the platform fonts each text really used, axe (shared across themes
where it cannot differ), the network and console watchers, and the fast full-page screenshot.
`pipeline.check.browser` runs these for every theme and width."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import npm
from pipeline.atomic import write_atomic
from pipeline.check.bands import (
    FAST_PNG,
    HASH_JS,
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


# axe's colour rules (tag `cat.color`: color-contrast, link-in-text-block) are the only ones that
# read colours; every other rule reads the DOM, ARIA, the layout (boxes, scrolling, target sizes)
# and the computed visibility and font styles. A theme switches colours through `data-theme` and
# prefers-color-scheme, but nothing stops a page's theme CSS (or script) from also hiding, moving
# or restyling things (the example's theme toggle shows a sun or a moon and sets aria-pressed).
# So the second theme of a width runs only the colour rules, and takes the first theme's other
# findings, when both themes have the same DOM (`DOM_KEY_JS`, without the theme attribute) and
# the same boxes and computed properties those rules read (`STYLE_KEY_JS`, only computed when
# the DOMs agree); otherwise it runs every rule itself.
DOM_KEY_JS = (
    "() => {\n  "
    + HASH_JS
    + """
  const dom = document.documentElement.outerHTML
    .replace(/^(<html\\b[^>]*?)\\s+data-theme="[^"]*"/, '$1');
  return hash(dom, 1) + ':' + dom.length;
}"""
)
STYLE_KEY_JS = (
    "() => {\n  "
    + HASH_JS
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
class ThemePair:
    """What the two themes of one width tell each other (see `DOM_KEY_JS`): the first's DOM key,
    whether the second wants the first's style key (the DOMs agree), that key, and the first's
    axe findings."""

    dom: asyncio.Future[str] = field(default_factory=_future)
    want_style: asyncio.Future[bool] = field(default_factory=_future)
    style: asyncio.Future[str] = field(default_factory=_future)
    axe: asyncio.Future[AxeRun] = field(default_factory=_future)


@dataclass
class AxeRun:
    violations: list[dict[str, Any]]
    colour_rules: list[str]  # the rules tagged cat.color that ran


@dataclass
class PageJob:
    """One page to measure; `pair` links the two themes of one width (`first` is the one that
    runs every axe rule)."""

    html: Path
    theme: str
    width: int
    shot: Path | None
    probe: bool
    axe: bool
    pair: ThemePair | None = None
    first: bool = True
    store: BandStore | None = None  # where screenshot bands are kept (default: the cache's)
    font_answers: FontAnswers | None = None  # platform fonts already asked by another page
    renderer: str = ""  # the browser's version, asked once for all pages

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


async def measure_page(page: Any, job: PageJob, timer: PhaseTimer) -> Measurement:
    url = job.html.resolve().as_uri()
    theme, width = job.theme, job.width
    result = Measurement(theme=theme, width=width, probe={}, renderer=job.renderer)
    client = page._client  # the page's DevTools session: pyppeteer lacks Fetch/CSS helpers
    with timer.phase("load"):
        watch_network(page, client, url, result.requests)
        watch_console(page, result.console_errors)
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
            targets = result.probe.get("fontTargets", [])
            result.fonts, asked = await platform_fonts(page, targets, job.font_answers)
            timer.count("font questions", asked)
            timer.count("font targets", len(targets))
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
            await _screenshot(page, job, timer)
        result.screenshot = job.shot
    if job.axe:
        result.axe = await _axe_for(page, job, same_layout, timer)
    if job.pair is not None and job.first and await job.pair.want_style:
        with timer.phase("layout-key"):
            job.pair.style.set_result(str(await page.evaluate(STYLE_KEY_JS)))
    return result


async def _same_layout(page: Any, pair: ThemePair, dom: str, timer: PhaseTimer) -> bool:
    """Whether this (second) theme's page has the first's DOM, boxes and computed styles."""
    if await pair.dom != dom:
        pair.want_style.set_result(False)
        return False
    pair.want_style.set_result(True)
    with timer.phase("layout-key"):
        style = str(await page.evaluate(STYLE_KEY_JS))
    return await pair.style == style


async def _axe_for(
    page: Any, job: PageJob, same_layout: bool, timer: PhaseTimer
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


def watch_network(
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


def watch_console(page: Any, errors: list[str]) -> None:
    def on_console(message: Any) -> None:
        # Blocked requests are reported once, as network-request problems, not twice.
        if message.type == "error" and "ERR_BLOCKED_BY_CLIENT" not in message.text:
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda err: errors.append(f"uncaught: {err}"))


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
    return AxeRun(found["violations"], found["colour"])
