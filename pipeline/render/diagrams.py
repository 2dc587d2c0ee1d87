"""The page's thin adapter over `pipeline.draw`: one call per diagram the page shows.

Every SVG on the page comes from the drawing engineer's functions. While one of them has not
landed yet, the adapter draws a clearly marked placeholder box (same markup contract) so the page
can be built and checked; errors raised INSIDE a drawing function (e.g. a caption that cannot fit)
always propagate.
"""

from __future__ import annotations

import html
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from pipeline.artifacts.sim import SweepView
from pipeline.artifacts.trace import TraceView
from pipeline.plan.model import Concept, Panel, Plan

PANEL_VIEWBOX = (400, 260)
PANEL_INSET = 16
WIDE_VIEWBOX = (1000, 300)
STAMP_VIEWBOX = (120, 80)
TICK_VIEWBOX = (24, 24)
STRIP_VIEWBOX = (640, 90)


def _drawing(module: str, name: str) -> Callable[..., str] | None:
    """The drawing function, or None while its module (or the function) does not exist yet."""
    try:
        mod = importlib.import_module(f"pipeline.draw.{module}")
    except ImportError as err:
        # Only a drawing module that is missing or half-landed counts as "pending".
        if err.name and err.name.startswith("pipeline.draw"):
            return None
        raise
    func = getattr(mod, name, None)
    return func if callable(func) else None


def _placeholder(
    svg_id: str, what: str, size: tuple[int, int], extra: str = "", role: str = "label"
) -> str:
    """A dashed box saying which drawing is missing; obeys templates/MARKUP.md."""
    w, h = size
    label = f"[{what}: drawing pending]"
    return (
        f'<svg id="{escape(svg_id)}" class="placeholder" role="img" viewBox="0 0 {w} {h}"{extra}>'
        f"<title>{escape(label)}</title><desc>{escape(label)}</desc>"
        f'<g class="ink"><rect x="4" y="4" width="{w - 8}" height="{h - 8}" rx="10" '
        f'fill="none" stroke="var(--idle)" stroke-width="2" stroke-dasharray="8 6"/></g>'
        f'<g class="words"><text id="{escape(svg_id)}-ph" data-role="{role}" x="{w // 2}" '
        f'y="{h // 2}" text-anchor="middle" font-size="{min(16, h // 3)}" fill="var(--ink)">'
        f"{escape(label)}</text></g></svg>"
    )


def panel_svg(
    concept: Concept,
    side: str,
    panel: Panel,
    trace: TraceView | None,
    values: Mapping[str, str],
    *,
    lang: str,
    overrides: Mapping[str, Mapping[str, Any]] | None,
) -> Markup:
    draw = _drawing("panel", "draw_panel")
    if draw is None:
        w, h = PANEL_VIEWBOX
        extra = f' data-panel="{escape(concept.id)}/{side}" data-inset="{PANEL_INSET}"'
        svg = _placeholder(f"panel-{concept.id}-{side}", f"{panel.scene} panel", (w, h), extra)
        return Markup(svg.replace('class="placeholder"', 'class="panel placeholder"', 1))
    return Markup(draw(concept, side, panel, trace, values, lang=lang, overrides=overrides or {}))


def _both(wide: str, narrow: str) -> Markup:
    """A wide diagram and its phone layout; page.css shows exactly one of them (the other is
    `display: none`, which the browser check and screen readers skip)."""
    return Markup(f'<div class="wide-only">{wide}</div><div class="narrow-only">{narrow}</div>')


def main_thread_svg(plan: Plan, *, lang: str) -> Markup:
    draw = _drawing("main_thread", "draw_main_thread")
    if draw is None:
        return Markup(_placeholder("main-thread-svg", "main thread", WIDE_VIEWBOX))
    return _both(draw(plan, lang=lang), draw(plan, lang=lang, narrow=True))


@dataclass(frozen=True)
class CastItem:
    """One entry of the cast legend: a bean (a `<use>` of the shared sprite), its letter, words."""

    symbol: str
    letter: str
    words: str


def cast_legend(plan: Plan, *, lang: str) -> tuple[list[CastItem], list[CastItem]]:
    """The cast legend (P5) as HTML items, the same at every width (a wrapping grid): each
    character is a `<use>` of the page's shared bean, so the legend costs a few bytes per item.
    Returns (the cast members, the colour key)."""
    from pipeline.draw.cast import symbol_id
    from pipeline.draw.legend import STATE_WORDS, STATES

    members = [CastItem(symbol_id(f"bean-{m.state}"), m.id, m.role) for m in plan.cast]
    key = [CastItem(symbol_id(f"bean-{s}"), "", STATE_WORDS[lang][s]) for s in STATES]
    return members, key


def ruler_svg(plan: Plan, sweep: SweepView | None, *, lang: str) -> Markup:
    draw = _drawing("ruler", "draw_ruler")
    if draw is None:
        return Markup(_placeholder("ruler-svg", "ruler", WIDE_VIEWBOX))
    measured = sweep if sweep is not None else SweepView()
    return _both(draw(plan, measured, lang=lang), draw(plan, measured, lang=lang, narrow=True))


def step_strip_svg(trace: TraceView, step_index: int, *, lang: str, focus: list[str]) -> Markup:
    draw = _drawing("steps", "draw_step_strip")
    if draw is None:
        return Markup(_placeholder(f"strip-{step_index}", f"step {step_index}", STRIP_VIEWBOX))
    return Markup(draw(trace, step_index, lang=lang, focus=focus))


def symbol_defs(*, lang: str) -> Markup:
    """The drawings' shared definitions (wobble filters, the cast as `<use>` targets), inserted
    once at the top of the body; empty while `pipeline.draw.defs` has not landed."""
    draw = _drawing("defs", "draw_symbol_defs")
    return Markup(draw(lang)) if draw is not None else Markup("")


def stamp_svg(state: str, *, lang: str, seed_id: str) -> Markup:
    draw = _drawing("stamp", "draw_stamp")
    if draw is None:
        return Markup(_placeholder(f"{seed_id}-svg", state, STAMP_VIEWBOX, role="tag"))
    return Markup(draw(state, lang=lang, seed_id=seed_id))


def tick_svg(*, seed_id: str) -> Markup:
    draw = _drawing("stamp", "draw_tick")
    if draw is None:
        return Markup(_placeholder(f"{seed_id}-svg", "tick", TICK_VIEWBOX, role="tag"))
    return Markup(draw(seed_id=seed_id))


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
