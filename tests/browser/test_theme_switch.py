"""Issue 26's two levers, held to their conditions. The dark theme switched to in the page the
check loaded in the light theme (after the light theme's whole measurement) is the state a
reader's fresh load in the dark theme reaches: the same serialized DOM, attributes included, and
the same computed styles of every element the probe measures, for both examples at both widths.
And axe's shared findings cannot hide a violation that only one theme has."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest

from pipeline.check import themes
from pipeline.check.axe_rules import (
    AXE_VERSION,
    PER_THEME_TAGS,
    SHARED_BY_METADATA_JS,
    SHARED_RULES,
)
from pipeline.check.browser import Chrome
from pipeline.check.measurement import WIDTHS
from pipeline.check.page_measure import PageJob, axe_source, measure_width
from pipeline.check.run import check_page
from pipeline.check.timing import PhaseTimer
from pipeline.config import load_config
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import load_plan
from pipeline.render.page import render_page
from pipeline.simulate.results import run_sim
from tests.browser.conftest import page_html

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PIXEL = "data:image/gif;base64,R0lGODlhAQABAAAAACw="

# The elements check_probe.js measures (its querySelectorAll selectors), and each one's every
# computed property, ::before and ::after included, and box; the whole DOM as serialized.
STATE_JS = """() => {
  const measured = 'svg text, svg.panel, svg, article.card, [data-section], ' +
    '[data-role="caption"][data-limit], p.body, [data-font]';
  const styles = [];
  for (const el of document.querySelectorAll(measured)) {
    const r = el.getBoundingClientRect();
    const parts = [el.tagName, el.id, r.x, r.y, r.width, r.height];
    for (const which of [null, '::before', '::after']) {
      const s = getComputedStyle(el, which);
      // custom properties enumerate in no fixed order: compared by name
      for (const p of [...s].sort()) parts.push(p + ':' + s.getPropertyValue(p));
    }
    styles.push(parts.join(';'));
  }
  return {dom: document.documentElement.outerHTML, styles, scroll: [scrollX, scrollY]};
}"""


@functools.cache
def _example_html(name: str, tmp: Path) -> Path:
    src = EXAMPLES / name
    plan = load_plan(src / "plan.json")
    html = render_page(plan, ingest_folder(src), load_config(src), run_sim(plan), None)
    path = tmp / name / "index.html"
    path.parent.mkdir(parents=True)
    path.write_text(html, encoding="utf-8")
    return path


def _first_difference(a: str, b: str) -> str:
    """Both texts around where they first differ (a whole page would drown the report)."""
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"switched: ...{a[max(0, i - 150) : i + 150]}...\nfresh: ...{b[max(0, i - 150) : i + 150]}..."


async def _switched_and_fresh(
    chrome: Chrome, html: Path, width: int, shots: Path
) -> tuple[bool, dict[str, Any], dict[str, Any]]:
    """The dark state reached by switching after the light theme's full measurement (probe,
    fonts, screenshot, axe), and the state of a fresh dark load, each in a page of its own."""
    contexts: list[Any] = []
    pages: list[Any] = []

    async def open_page() -> Any:
        contexts.append(await chrome._browser.createIncognitoBrowserContext())
        pages.append(await contexts[-1].newPage())
        return pages[-1]

    timer = PhaseTimer()
    light = PageJob(html, "light", width, shots / f"light-{width}.png", True, True)
    await measure_width(open_page, [light], timer)
    switched = await themes.switch(pages[0], "dark", timer)
    after_switch = await pages[0].evaluate(STATE_JS)
    await measure_width(open_page, [PageJob(html, "dark", width, None, False, False)], timer)
    fresh = await pages[1].evaluate(STATE_JS)
    for context in contexts:
        await context.close()
    return switched, after_switch, fresh


@pytest.mark.parametrize("name", ["llm-inference", "llm-inference-en"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_switched_dark_page_is_a_fresh_dark_load(
    chrome: Chrome, tmp_path_factory: pytest.TempPathFactory, name: str, width: int
) -> None:
    html = _example_html(name, tmp_path_factory.getbasetemp())
    if chrome._browser is None:  # the test drives pages on the check's own browser and loop
        chrome._run(chrome._start())
    switched, after, fresh = chrome._run(
        asyncio.wait_for(_switched_and_fresh(chrome, html, width, html.parent), 180)
    )
    assert switched, "the check would load the dark theme fresh"
    assert 'data-theme="dark"' in fresh["dom"] and 'aria-pressed="true"' in fresh["dom"]
    assert after["dom"] == fresh["dom"], _first_difference(after["dom"], fresh["dom"])
    assert len(after["styles"]) == len(fresh["styles"]) > 100
    pairs = zip(after["styles"], fresh["styles"], strict=True)
    differing = [(a, b) for a, b in pairs if a != b]
    assert not differing, _first_difference(*differing[0])
    assert after["scroll"] == fresh["scroll"] == [0, 0]


def test_a_page_with_a_script_of_its_own_loads_the_dark_theme_fresh(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    body = "<p id='p'>hi</p><script>document.getElementById('p').title = 'x';</script>"
    timer = PhaseTimer()
    check_page(write_page(page_html(body, csp=False)), tmp_path / "o", chrome=chrome, timer=timer)
    phases = {row["phase"]: row for row in timer.rows()}
    assert phases["load"]["count"] == 4
    assert timer.counts.get("switches", 0) == 0 and timer.counts["switches refused"] == 2


def test_a_violation_only_the_dark_theme_has_is_reported_beside_shared_ones(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    # Dark shows a link inside an element hidden from assistive technology (aria-hidden-focus,
    # a rule the dark theme runs itself); the bare image (image-alt, shared) is in both.
    head = (
        "<style>#moon { visibility: hidden; } "
        "[data-theme='dark'] #moon { visibility: visible; }</style>"
    )
    body = (
        f'<img id="bare" src="{PIXEL}" width="20" height="20">'
        '<p><span id="moon" aria-hidden="true"><a href="#bare">月</a></span></p>'
    )
    timer = PhaseTimer()
    report = check_page(
        write_page(page_html(body, head=head, csp=False)), tmp_path / "o", chrome=chrome,
        timer=timer,
    )  # fmt: skip
    found = {(p.theme, p.width, p.message.split(" ")[0]) for p in report.problems if p.rule == "axe"}
    hidden_focus = {(t, w) for t, w, m in found if "aria-hidden-focus" in m}
    image_alt = {(t, w) for t, w, m in found if "image-alt" in m}
    assert hidden_focus == {("dark", 1280), ("dark", 390)}
    assert image_alt == {(t, w) for t in ("light", "dark") for w in WIDTHS}
    phases = {row["phase"]: row for row in timer.rows()}
    # One load and one switch per width; the dark pages took image-alt from the light ones.
    assert phases["load"]["count"] == 2 and timer.counts["switches"] == 2
    assert phases["axe"]["count"] == 2 and phases["axe-colour"]["count"] == 2


def test_the_shared_rules_are_those_axe_core_metadata_gives(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    html = write_page(page_html("<p>hi</p>", csp=False))
    tags = repr(list(PER_THEME_TAGS))
    visit = chrome.visit(
        html, [("eval", axe_source()), ("eval", "axe.version"),
               ("eval", f"({SHARED_BY_METADATA_JS})({tags})")],
    )  # fmt: skip
    assert visit.values[1] == AXE_VERSION
    assert tuple(visit.values[2]) == SHARED_RULES
