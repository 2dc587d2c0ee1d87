"""The page's shared drawing definitions: wobble filters and the cast, defined ONCE per page.

Inline SVGs of one HTML document share ids, so panels and step strips reference these filters
and `<use>` these characters instead of repeating them (the page must stay under 400 KB).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pipeline.draw import cast, key, panel, rough
from pipeline.draw.canvas import Canvas, merge_paths, new_canvas, wobble_filter
from pipeline.draw.filters import SEED_RANGE, SHARED_SEEDS
from pipeline.draw.palette import STATE_COLOUR
from pipeline.draw.svg import element

SYMBOL_SCRATCH = 100.0  # a scratch canvas size for drawing a character around (0, 0)
# The walkthrough's step strips share the "s" filters: their region is the strip's size.
STRIP_SIZE = (420.0, 64.0)
Symbol = tuple[str, Callable[[Canvas], None]]


def _filters() -> str:
    sizes = {"p": (panel.WIDTH, panel.HEIGHT), "s": STRIP_SIZE}
    out = []
    for kind, count in SHARED_SEEDS.items():
        w, h = sizes[kind]
        for k in range(count):
            seed = rough.seed_int(f"{kind}{k}", SEED_RANGE)
            out.append(wobble_filter(f"wob-{kind}{k}", w, h, seed))
    return "".join(out)


def _symbol(name: str, draw: Canvas) -> str:
    """One character's shapes in a `<g>` (a `<use>` inherits the ink group's stroke defaults)."""
    return element("g", {"id": cast.symbol_id(name)}, "".join(merge_paths(draw.shapes)))


def _scratch(name: str) -> Canvas:
    return new_canvas(f"defs-{name}", SYMBOL_SCRATCH, SYMBOL_SCRATCH, 0, "en", "defs", wobble=False)


def draw_symbol_defs(lang: str, symbols: Sequence[Symbol] = ()) -> str:
    """A hidden zero-size `<svg class="sprites">` holding the shared filters, the cast (every
    bean state, the GPU busy and idle, the clerk), the key swatches, the page's fields' own
    shared art (`symbols`, from the registry) and the panel borders; insert it once at the top
    of `<body>`. `lang` is accepted for symmetry with the other drawings (the cast carries no
    words)."""
    parts = [_filters()]
    for state in STATE_COLOUR:
        cv = _scratch(f"bean-{state}")
        cast.bean_body(cv, 0, 0, state, eid=f"bean-{state}")
        parts.append(_symbol(f"bean-{state}", cv))
    for busy in (True, False):
        name = "gpu-busy" if busy else "gpu-idle"
        cv = _scratch(name)
        cast.gpu_body(cv, 0, 0, busy=busy, eid=name)
        parts.append(_symbol(name, cv))
    cv = _scratch("clerk")
    cast.clerk_body(cv, 0, 0, eid="clerk")
    parts.append(_symbol("clerk", cv))
    for kind in key.SWATCH_KINDS:
        cv = _scratch(f"swatch-{kind}")
        key.swatch_body(cv, kind, 0, 0)
        parts.append(_symbol(f"swatch-{kind}", cv))
    for name, body in symbols:  # the fields' scenes' shared art
        cv = _scratch(name)
        body(cv)
        parts.append(_symbol(name, cv))
    for k in range(panel.FRAME_VARIANTS):
        cv = _scratch(f"frame-{k}")
        panel.frame_body(cv)
        parts.append(_symbol(f"frame-{k}", cv))
    return (
        '<svg class="sprites" aria-hidden="true" focusable="false" width="0" height="0" '
        'xmlns="http://www.w3.org/2000/svg">'
        f"<defs>{''.join(parts)}</defs></svg>"
    )


# A shared drawing in the sprites (flat: its shapes hold no nested group).
SYMBOL_GROUP = re.compile(r'<g id="(tj-[^"]+)">.*?</g>', re.S)


def drop_unused_symbols(html: str) -> str:
    """`html` without the shared drawings nothing on it `<use>`s (a page without speculative
    decoding needs no draft swatches, a page whose GPUs are all busy no idle GPU): the defs are
    drawn before the panels, so what they need is known only on the whole page."""

    def keep(m: re.Match[str]) -> str:
        return m.group(0) if f'href="#{m.group(1)}"' in html else ""

    start = html.find('<svg class="sprites"')
    if start < 0:
        return html
    end = html.find("</svg>", start)
    return html[:start] + SYMBOL_GROUP.sub(keep, html[start:end]) + html[end:]
