"""Which platform fonts Chromium really used for each probe-tagged text
(CSS.getPlatformFontsForNode), asked once per distinct text and font rather than once per
element and page.

What a node reports depends only on its own text (the method reports the fonts of the node's
child text nodes), the fonts its computed style asks for (family list, weight, style, stretch,
variant, size, text-transform) and its locale (CJK fallback differs by language), given the same
page style sheets and browser. So elements, themes and widths that agree on all of that
(`FONT_KEY_JS`) share one answer: on the example page 2,236 questions become about 200.
`FontAnswers` is shared by the pages of one check, which all load the same file.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

FONT_KEY_JS = """(probes) => probes.map((probe) => {
  const el = document.querySelector('[data-tujie-probe="' + probe + '"]');
  if (!el) return null;
  const s = getComputedStyle(el);
  let own = '';
  for (const n of el.childNodes) if (n.nodeType === 3) own += n.data;
  return JSON.stringify([own, s.fontFamily, s.fontWeight, s.fontStyle, s.fontStretch,
    s.fontVariant, s.fontSize, s.textTransform, s.webkitLocale, s.fontFeatureSettings,
    s.fontSynthesis]);
})"""

Fonts = list[dict[str, Any]]


@dataclass
class FontAnswers:
    """Answers by font key, as futures: a page that needs a key another page is already asking
    for waits for that answer instead of asking again."""

    by_key: dict[str, asyncio.Future[Fonts]] = field(default_factory=dict)


async def platform_fonts(
    page: Any, targets: list[dict[str, Any]], answers: FontAnswers | None = None
) -> tuple[dict[str, Fonts], int]:
    """For each probe-tagged element (`targets` from the probe), the fonts Chromium used:
    family and glyph count each; and how many questions this page asked the browser (keys
    already answered or asked for in `answers` are not asked again)."""
    if not targets:
        return {}, 0
    answers = answers if answers is not None else FontAnswers()
    keys: list[str | None] = await page.evaluate(FONT_KEY_JS, [t["probe"] for t in targets])
    mine: dict[str, dict[str, Any]] = {}  # key -> the target this page asks about
    for target, key in zip(targets, keys, strict=True):
        if key is not None and key not in answers.by_key:
            answers.by_key[key] = asyncio.get_running_loop().create_future()
            mine[key] = target
    try:
        await _ask(page._client, mine, answers)
    except BaseException as err:
        for key in mine:
            if not answers.by_key[key].done():
                answers.by_key[key].set_exception(err)
        raise
    out: dict[str, Fonts] = {}
    for target, key in zip(targets, keys, strict=True):
        if key is not None:
            out[target["id"]] = await answers.by_key[key]
    return out, len(mine)


async def _ask(client: Any, mine: dict[str, dict[str, Any]], answers: FontAnswers) -> None:
    if not mine:
        return
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
            for target in mine.values()
        )
    )
    nodes = [f.get("nodeId") for f in found]
    located = [(key, node) for key, node in zip(mine, nodes, strict=True) if node]
    used = await asyncio.gather(
        *(client.send("CSS.getPlatformFontsForNode", {"nodeId": node}) for _k, node in located)
    )
    for (key, _node), fonts in zip(located, used, strict=True):
        answers.by_key[key].set_result(
            [
                {"family": f.get("familyName", ""), "glyphs": int(f.get("glyphCount", 0))}
                for f in fonts.get("fonts", [])
            ]
        )
    for key, node in zip(mine, nodes, strict=True):
        if not node:  # gone from the page since the probe: nobody can answer it
            answers.by_key[key].set_result([])
