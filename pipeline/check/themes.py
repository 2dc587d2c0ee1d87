"""Putting a loaded page in a theme, and telling whether two themes of one width laid the page
out alike.

A theme is what a reader's browser would choose: prefers-color-scheme, emulated through DevTools,
and the page's `data-theme` attribute, set by the check as the page's own script would. The
second theme of a width is switched to in the page already loaded (one load per width instead
of two) only when the switched page is the state a fresh load in that theme reaches:
`tests/browser/test_theme_switch.py` compares the serialized DOM and the computed styles of
every element after a switch with a fresh load, for both examples at both widths. That holds for
pages whose only script is tujie's page script (it follows prefers-color-scheme changes) or that
have none, and whose switch starts no CSS transition or animation (a style caught mid-way is no
reader's state) and that load nothing lazily (a lazy image the first theme's screenshot scrolled
into view would be loaded only here). Any other page gets a fresh load in that theme.

The layout keys (`keys`) let the second theme take the first's findings of axe's shared rules
(`pipeline.check.axe_rules`): the DOM with the theme attribute, the check's own marks and the
values of the ARIA state attributes left out, and the boxes and computed properties those rules
read of every element not hidden from assistive technology.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pipeline.check.axe_rules import STATE_ATTRIBUTES
from pipeline.check.bands import HASH_JS
from pipeline.check.timing import PhaseTimer
from pipeline.paths import templates_dir
from pipeline.render.csp import minify_js

PAGE_SCRIPT = "page.js"

# After a load or a switch: the theme attribute as the page script sets it, then the fonts the
# theme's styles ask for, and two frames so media-query listeners and layout have run.
SETTLE_JS = """async (theme) => {
  document.documentElement.dataset.theme = theme;
  await new Promise(r => requestAnimationFrame(r));
  await document.fonts.ready;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""

# Before a switch: whether it may be done in place (see the module docstring); the marks the
# probe left for DevTools go, and the page scrolls back to where a fresh load starts.
BEFORE_SWITCH_JS = """() => {
  for (const el of document.querySelectorAll('[data-tujie-probe]')) {
    el.removeAttribute('data-tujie-probe');
  }
  window.scrollTo(0, 0);
  return {scripts: [...document.scripts].map(s => s.src ? 'src:' + s.src : s.textContent),
          lazy: document.querySelector('[loading="lazy"]') !== null};
}"""
AFTER_SWITCH_JS = "() => document.getAnimations().length"

DOM_KEY_JS = (
    "(states) => {\n  "
    + HASH_JS
    + """
  const copy = document.documentElement.cloneNode(true);
  copy.removeAttribute('data-theme');
  for (const el of [copy, ...copy.querySelectorAll('*')]) {
    el.removeAttribute('data-tujie-probe');
    for (const name of states) if (el.hasAttribute(name)) el.setAttribute(name, '');
  }
  const dom = copy.outerHTML;
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
    if (el.closest('[aria-hidden="true"]')) continue;  // no shared rule looks at it
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


@dataclass(frozen=True)
class Keys:
    """One theme's layout keys (see the module docstring)."""

    dom: str
    style: str


async def emulate(page: Any, theme: str) -> None:
    await page._client.send(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": theme}]},
    )


@functools.cache
def _page_script() -> str:
    """tujie's page script as the renderer inlines it."""
    return minify_js((templates_dir() / PAGE_SCRIPT).read_text(encoding="utf-8"))


async def switch(page: Any, theme: str, timer: PhaseTimer) -> bool:
    """Put the loaded page in `theme` in place, if that reaches a fresh load's state (see the
    module docstring); False when the page needs a fresh load instead."""
    with timer.phase("switch"):
        before = await page.evaluate(BEFORE_SWITCH_JS)
        if before["lazy"] or any(s.strip() != _page_script().strip() for s in before["scripts"]):
            timer.count("switches refused", 1)
            return False
        await emulate(page, theme)
        await page.evaluate(SETTLE_JS, theme)
        if await page.evaluate(AFTER_SWITCH_JS):
            timer.count("switches refused", 1)
            return False
    timer.count("switches", 1)
    return True


async def keys(page: Any, timer: PhaseTimer) -> Keys:
    with timer.phase("layout-key"):
        dom = str(await page.evaluate(DOM_KEY_JS, list(STATE_ATTRIBUTES)))
        style = str(await page.evaluate(STYLE_KEY_JS))
    return Keys(dom, style)
