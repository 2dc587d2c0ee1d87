"""The page's thin adapter over `pipeline.draw`: one call per diagram the page shows, returning
markup the page template can insert (wide and phone layouts side by side where a diagram has
both). Errors raised inside a drawing (e.g. a caption that cannot fit) propagate."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from markupsafe import Markup, escape

from pipeline import fields
from pipeline.artifacts.sim import SimResults, SweepView
from pipeline.draw import draw_main_thread, draw_ruler, draw_stamp, draw_symbol_defs, draw_tick
from pipeline.draw.stamp import Stamp
from pipeline.plan.model import Concept, Panel, Plan

Side = Literal["trouble", "fix"]

STAMP_VIEWBOX = (120, 80)


def panel_svg(
    plan: Plan,
    concept: Concept,
    side: str,
    panel: Panel,
    sim: SimResults,
    *,
    lang: str,
    overrides: Mapping[str, Mapping[str, Any]] | None,
    path: str | None = None,
) -> Markup:
    """One comic panel, drawn by its concept's field (`pipeline.fields`) from its run."""
    return Markup(
        fields.draw_panel_of(
            plan, concept, side, panel, sim, lang=lang, overrides=overrides, path=path
        )
    )


def _both(wide: str, narrow: str) -> Markup:
    """A wide diagram and its phone layout; page.css shows exactly one of them (the other is
    `display: none`, which the browser check and screen readers skip)."""
    return Markup(f'<div class="wide-only">{wide}</div><div class="narrow-only">{narrow}</div>')


def main_thread_svg(plan: Plan, *, lang: str) -> Markup:
    return _both(draw_main_thread(plan, lang=lang), draw_main_thread(plan, lang=lang, narrow=True))


@dataclass(frozen=True)
class CastItem:
    """One entry of the cast legend: a bean (a `<use>` of the shared sprite), its letter, words."""

    symbol: str
    letter: str
    words: str


def cast_legend(plan: Plan, *, lang: str) -> tuple[list[CastItem], list[CastItem]]:
    """The cast legend (P5) as HTML items, the same at every width (a wrapping grid): each
    character is a `<use>` of the page's shared bean, so the legend costs a few bytes per item.
    Returns (the cast members, the colour key); the key is empty on a page whose fields do not
    colour the cast by state (a training or general page keys its colours in its panels)."""
    from pipeline.draw.cast import symbol_id
    from pipeline.draw.legend import STATE_WORDS, STATES

    members = [CastItem(symbol_id(f"bean-{m.state}"), m.id, m.role) for m in plan.cast]
    if not fields.colours_cast(plan):
        return members, []
    key = [CastItem(symbol_id(f"bean-{s}"), "", STATE_WORDS[lang][s]) for s in STATES]
    return members, key


def ruler_svg(plan: Plan, sweep: SweepView | None, *, lang: str) -> Markup:
    measured = sweep if sweep is not None else SweepView()
    wide = draw_ruler(plan, measured, lang=lang)
    return _both(wide, draw_ruler(plan, measured, lang=lang, narrow=True))


def symbol_defs(plan: Plan, *, lang: str) -> Markup:
    """The drawings' shared definitions (wobble filters, the cast as `<use>` targets, the
    plan's fields' shared art), inserted once at the top of the body."""
    return Markup(draw_symbol_defs(lang, fields.symbols(fields.page_fields(plan))))


def stamp_svg(state: str, *, lang: str, seed_id: str) -> Markup:
    return Markup(draw_stamp(cast(Stamp, state), lang=lang, seed_id=seed_id))


def tick_svg(*, seed_id: str) -> Markup:
    return Markup(draw_tick(seed_id=seed_id))


@dataclass(frozen=True)
class StampFace:
    """One progress-stamp state, drawn once as a `<symbol>` that every card's stamp `<use>`s."""

    state: str
    symbol_id: str
    view_box: str
    title: Markup
    desc: Markup
    symbol: Markup


_SVG_PARTS = re.compile(
    r"^<svg\b(?P<attrs>[^>]*)>\s*<title>(?P<title>.*?)</title>\s*<desc>(?P<desc>.*?)</desc>"
    r"(?P<body>.*)</svg>\s*$",
    re.DOTALL,
)
_VIEW_BOX = re.compile(r'viewBox="([^"]+)"')


def _attr(text: Markup) -> Markup:
    """Element text (escaped for text content only) made safe inside a quoted attribute."""
    return escape(html.unescape(str(text)))


def stamp_face(state: str, *, lang: str, label: str) -> StampFace:
    """The state's stamp as a symbol (drawn by `draw_stamp`) plus what a `<use>` of it needs.
    `label` names the state when the drawing's own <title>/<desc> cannot be read."""
    svg = str(stamp_svg(state, lang=lang, seed_id=f"face-{state}"))
    symbol_id = f"stamp-sym-{state}"
    parts = _SVG_PARTS.match(svg)
    view_box = _VIEW_BOX.search(parts.group("attrs")) if parts else None
    if parts is not None and view_box is not None:
        box, body = view_box.group(1), parts.group("body")
        title, desc = Markup(parts.group("title")), Markup(parts.group("desc"))
    else:
        # Unexpected markup: nest the whole drawing (a few bytes more, still drawn once).
        w, h = STAMP_VIEWBOX
        box, body = f"0 0 {w} {h}", svg
        title = desc = escape(label)
    symbol = Markup(
        f'<symbol id="{symbol_id}" viewBox="{box}" data-title="{_attr(title)}" '
        f'data-desc="{_attr(desc)}" data-word="{escape(label)}">{body}</symbol>'
    )
    return StampFace(state, symbol_id, box, title, desc, symbol)
