"""`draw_ruler` (P8, P22): one chart, 2-3 metrics, every technique's measured effect from the
sweep, each on its own workload (`ruler_rows` says what each cell is).

Ink only (the state colours are reserved, P14): a bold FILLED arrow with a check mark where the
metric improves, a thin HOLLOW arrow with a small cross where it is sacrificed, a short wavy dash
where it barely moves; the arrow points the way the number moved and the measured percentage sits
next to it, with what the cell shows when it is not the metric's mean ("P99", "TPOT") under it.
A row none of whose cells worsens says under its cells, after the same cross, what it costs
instead (its card's `costs`). Column heads say which way is better; a key in the corner says what filled and hollow
mean. `narrow=True` stacks each technique's name over its cells for a phone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline import fonts
from pipeline.artifacts.sim import SweepView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.key import draw_tag
from pipeline.draw.layout import LINE_HEIGHT, family_for, vertical_metrics, wrap
from pipeline.draw.palette import FAINT, INK, PAPER
from pipeline.draw.ruler_rows import Cell, Row, ruler_table, verdict
from pipeline.plan.model import Concept, Plan

WIDTH = 800.0
INSET = 8.0
HEAD_H = 78.0
ROW_H = 42.0
NAME_W = 230.0
# narrow (phone) layout: about one viewBox unit per CSS px at 390 px
NARROW_W = 360.0
N_HEAD_CY = 58.0
N_HEAD_H = 104.0
N_ROW_H = 72.0
N_CELL_DY = 48.0  # a narrow row: its name at 16 below its top, its cells here
N_COST_W = NARROW_W - 2 * INSET - 12  # room for a narrow row's costs words
W_COST_W = WIDTH - INSET - 20 - NAME_W  # ... and a wide row's, under its cells
ARROW_LEN = 26.0
BOLD_HALF = (4.0, 10.0)  # shaft and head half-widths of the "improves" arrow
THIN_HALF = (2.5, 7.0)  # ... and of the hollow "sacrifices" arrow
KEY_PAIR = 17.0  # the key's down arrow, right of its up arrow
PCT_SIZE = {"better": 17.0, "worse": 14.0, "same": 14.0, "unstated": 13.0}
NOTE_SIZE = 11.0  # "P99" / "TPOT" under a cell's number: >= 11 px on a phone
NOTE_UP = 8.5  # a noted cell's number moves up this much ...
NOTE_DOWN = 12.5  # ... and its note sits this far below the row's centre
COST_SIZE = 13.0
COST_PAD = 6.0  # a row with costs words grows by COST_PAD + the words' block (`_cost_block`)
WORDS = {
    "zh": {"higher": "越高越好", "lower": "越低越好", "title": "标尺", "better": "改善",
           "worse": "牺牲", "same": "差不多", "unstated": "原文未提", "costs": "代价不在这几列里："},
    "en": {"higher": "higher is better", "lower": "lower is better", "title": "Ruler",
           "better": "improves", "worse": "sacrifices", "same": "about the same",
           "unstated": "not stated", "costs": "its cost is off these columns: "},
}


def _arrow_outline(x: float, cy: float, up: bool, half: tuple[float, float]) -> list[rough.Point]:
    """A block arrow (shaft + head) centred on (x, cy), pointing up or down."""
    shaft, head = half
    s = -1.0 if up else 1.0  # direction of the tip along y
    tip = cy + s * ARROW_LEN / 2
    tail = cy - s * ARROW_LEN / 2
    neck = tip - s * head * 1.1
    return [
        (x, tip),
        (x + head, neck),
        (x + shaft, neck),
        (x + shaft, tail),
        (x - shaft, tail),
        (x - shaft, neck),
        (x - head, neck),
    ]


def _check(cv: Canvas, eid: str, x: float, cy: float) -> None:
    rng = cv.rng(eid)
    cv.stroke(rough.curve(rng, [(x, cy), (x + 3.5, cy + 4.5), (x + 11, cy - 6)], 0.3, 1),
              width=2.4)


def _cross(cv: Canvas, eid: str, x: float, cy: float) -> None:
    rng = cv.rng(eid)
    r = 3.5
    cv.stroke(rough.line(rng, (x - r, cy - r), (x + r, cy + r), 0.3, 1)
              + rough.line(rng, (x + r, cy - r), (x - r, cy + r), 0.3, 1), width=1.4)


def _mark(cv: Canvas, eid: str, x: float, cy: float, pct: float, kind: str) -> None:
    """The cell's arrow: filled bold (improves), hollow thin (sacrifices), wavy dash (same);
    none where no source says (the cell's words do)."""
    rng = cv.rng(eid)
    if kind == "unstated":  # no source says: no mark, the words say it
        return
    if kind == "same":
        cv.stroke(rough.curve(rng, [(x - 8, cy + 1), (x - 3, cy - 2), (x + 3, cy + 2),
                                    (x + 8, cy - 1)], 0.2, 1), width=1.6)
        return
    pts = _arrow_outline(x, cy, pct > 0, BOLD_HALF if kind == "better" else THIN_HALF)
    if kind == "better":
        cv.shape(rough.jitter_poly(rng, pts, 0.5), fill=INK, colour=INK, width=1.4)
    else:
        cv.shape(rough.jitter_poly(rng, pts, 0.5), fill=PAPER, colour=INK, width=1.1)


def _key(cv: Canvas, words: Mapping[str, str], y: float, x: float) -> None:
    """What filled and hollow mean, under the tag in the name column: each drawn pointing up
    and down, since a cell's arrow shows which way its number moved and a lower-is-better
    metric improves downwards (reader cc1 took an up-only key for "up is better")."""
    for kind, eid in (("better", "key-b"), ("worse", "key-w")):
        _mark(cv, eid, x, y, 1.0, kind)
        x += KEY_PAIR
        _mark(cv, f"{eid}-down", x, y, -1.0, kind)
        tick_x = x + 12
        (_check if kind == "better" else _cross)(cv, f"{eid}-m", tick_x + (0 if kind == "better"
                                                                            else 4), y)
        placed = cv.layout.place(words[kind], x=tick_x + 16, cy=y, role="label", size=14,
                                 anchor="start", floor=None)
        x = placed.box.x1 + 26


def _heads(cv: Canvas, metrics: list[Any], words: Mapping[str, str], x0: float, col: float,
           cy: float, size: float) -> None:
    """Each metric's name over its column, and which way is better (a small arrow + words)."""
    for j, m in enumerate(metrics):
        x = x0 + col * (j + 0.5)
        cv.layout.place(m.name, x=x, cy=cy, role="label", size=size, max_width=col - 12)
        placed = cv.layout.place(words[m.better], x=x + 8, cy=cy + 26, role="axis", size=12,
                                 max_width=col - 24)
        ax = placed.box.x0 - 9
        up = m.better == "higher"
        tail, tip = (ax, cy + 26 + (6 if up else -6)), (ax, cy + 26 - (6 if up else -6))
        cv.stroke(rough.arrow(cv.rng(f"dir-{j}"), tail, tip, 0.3, 0, 4), width=1.2)


def _cell(cv: Canvas, i: int, j: int, x: float, cy: float, cell: Cell, right: float) -> None:
    """One technique x metric cell centred on x: the verdict mark, the number (or a cited
    amount) and, under it, what the cell shows when it is not the metric's mean. A cell whose
    words would pass `right` (the last column's "-20.4 个点" on a phone) moves left as a whole."""
    family = cv.layout.family
    wide = max(fonts.measure(cell.text, family, PCT_SIZE[cell.kind]),
               fonts.measure(cell.note, family, NOTE_SIZE) if cell.note else 0.0)
    x = min(x, right - wide + 6)
    _mark(cv, f"cell-{i}-{j}", x - 34, cy, cell.sign, cell.kind)
    if cell.kind == "better":
        _check(cv, f"ok-{i}-{j}", x - 22, cy + 2)
    elif cell.kind == "worse":
        _cross(cv, f"no-{i}-{j}", x - 19, cy + 2)
    cv.layout.place(cell.text, x=x - 6, cy=cy - (NOTE_UP if cell.note else 0.0), role="label",
                    size=PCT_SIZE[cell.kind], anchor="start", floor=None)
    if cell.note:
        cv.layout.place(cell.note, x=x - 6, cy=cy + NOTE_DOWN, role="axis", size=NOTE_SIZE,
                        anchor="start", floor=None)


def cost_text(row: Row, lang: str) -> str:
    return WORDS[lang]["costs"] + row.costs if row.costs else ""


def _cost_lines(row: Row, lang: str, width: float) -> list[str]:
    text = cost_text(row, lang)
    return wrap(text, family_for(text, lang), COST_SIZE, width) if text else []


def _cost_block(lines: Sequence[str], lang: str) -> tuple[float, float]:
    """(the height of the costs words' block, of its first line): their font's own line box
    (the hand font's is taller than 1.15 em), so the row grows by what the browser draws and
    the words never run into the next row or off the chart; (0, 0) when there are none."""
    if not lines:
        return 0.0, 0.0
    ascent, descent = vertical_metrics(family_for(lines[0], lang))
    first = COST_SIZE * (ascent + descent)
    return first + COST_SIZE * LINE_HEIGHT * (len(lines) - 1), first


def _costs(cv: Canvas, i: int, row: Row, lang: str, x: float, top: float, width: float) -> None:
    """The row's costs words from `top` down, after a small cross beside their first line:
    what it sacrifices off these metrics, wrapped over the lines `_tops` gave it room for."""
    lines = _cost_lines(row, lang, width - 14)
    block, first = _cost_block(lines, lang)
    _cross(cv, f"cost-{i}", x + 4, top + COST_PAD / 2 + first / 2)
    cv.layout.place(cost_text(row, lang), x=x + 14, cy=top + COST_PAD / 2 + block / 2,
                    role="label", size=COST_SIZE, anchor="start", max_width=width - 14,
                    max_lines=len(lines))


def _merged(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Touching vertical spans joined, so a column rule is one stroke where nothing breaks it."""
    out: list[tuple[float, float]] = []
    for y0, y1 in spans:
        if out and abs(out[-1][1] - y0) < 1e-6:
            out[-1] = (out[-1][0], y1)
        else:
            out.append((y0, y1))
    return out


def _tag_kind(rows: Sequence[Row]) -> str:
    """"simulated" when some row is a simulated run on a named workload, "quoted" when every
    row is a source's claim (the chart is the articles', not a small example's)."""
    if any(row.technique is not None for row in rows):
        return "simulated"
    return "quoted" if rows else "illustrative"


def _wide(cv: Canvas, rows: Sequence[Row], tops: Sequence[float], metrics: list[Any],
          words: Mapping[str, str], lang: str) -> None:
    draw_tag(cv, lang, right=NAME_W - 40, cy=24, kind=_tag_kind(rows))
    _key(cv, words, 54, INSET + 18)
    col = (WIDTH - INSET - 10 - NAME_W) / max(len(metrics), 1)
    _heads(cv, metrics, words, NAME_W, col, 26, 17)
    rng = cv.rng("grid")
    # column rules over the heads and each row's cells, never through a row's costs words
    spans = [(16.0, HEAD_H)] + [(top, top + ROW_H) for top in tops[:-1]]
    grid = "".join(rough.line(rng, (NAME_W + col * j, y0), (NAME_W + col * j, y1), 0.5, 1)
                   for j in range(1, len(metrics)) for y0, y1 in _merged(spans))
    for top in tops[:-1]:
        grid += rough.line(rng, (INSET + 6, top), (WIDTH - INSET - 6, top), 0.5, 1)
    cv.stroke(grid, FAINT, width=1.0)
    for i, row in enumerate(rows):
        cy = tops[i] + ROW_H / 2
        cv.layout.place(row.name(lang), x=INSET + 10, cy=cy, role="label", size=16,
                        anchor="start", max_width=NAME_W - 24)
        for j, cell in enumerate(row.cells):
            _cell(cv, i, j, NAME_W + col * (j + 0.5), cy, cell, WIDTH - INSET - 2)
        if row.costs:
            _costs(cv, i, row, lang, NAME_W + 10, tops[i] + ROW_H, W_COST_W)


def _narrow(cv: Canvas, rows: Sequence[Row], tops: Sequence[float], metrics: list[Any],
            words: Mapping[str, str], lang: str) -> None:
    """Phone layout: the key and tag on top, the metric heads once, then per technique its name
    on one line, its cells under the heads and its costs words (if any) under them."""
    draw_tag(cv, lang, right=NARROW_W - INSET - 2, cy=22, kind=_tag_kind(rows))
    _key(cv, words, 22, INSET + 14)
    col = (NARROW_W - 2 * INSET) / max(len(metrics), 1)
    _heads(cv, metrics, words, INSET, col, N_HEAD_CY, 15)
    rng = cv.rng("grid")
    grid = ""
    for i, row in enumerate(rows):
        top = tops[i]
        grid += rough.line(rng, (INSET + 4, top), (NARROW_W - INSET - 4, top), 0.5, 1)
        cv.layout.place(row.name(lang), x=INSET + 6, cy=top + 16, role="label", size=15,
                        anchor="start", max_width=NARROW_W - 2 * INSET - 12)
        for j, cell in enumerate(row.cells):
            _cell(cv, i, j, INSET + col * (j + 0.5) + 8, top + N_CELL_DY, cell,
                  NARROW_W - INSET - 2)
        if row.costs:
            _costs(cv, i, row, lang, INSET + 6, top + N_ROW_H, N_COST_W)
    cv.stroke(grid, FAINT, width=1.0)


def _summary(rows: Sequence[Row], words: Mapping[str, str], lang: str) -> list[str]:
    """Every cell in words, for the `<desc>` (both layouts). Each row's baseline and workload are
    the figure's caption below it (`ruler_runs`), in the page's language: not repeated here."""
    out = []
    for row in rows:
        name = row.name(lang)
        for cell in row.cells:
            shown = f"{cell.metric.name} {cell.note}".strip()
            said = f"{shown} {cell.text} ({words[cell.kind]})"
            if row.technique is not None:
                before, after = row.technique.absolute(cell.metric.id)
                if before is not None and after is not None:
                    said += f" {before:g} → {after:g}"
            out.append(f"{name} {said}")
        if row.costs:
            out.append(f"{name} {cost_text(row, lang)}")
    return out


def ruler_rows(plan: Plan, sweep: SweepView) -> list[Concept]:
    """The ruler's rows' concepts, in page order (`ruler_rows.ruler_table` has their cells)."""
    return [row.concept for row in ruler_table(plan, sweep)]


def _tops(rows: Sequence[Row], lang: str, first: float, height: float, room: float) -> list[float]:
    """Each row's top, and the bottom of the last: a row with costs words is taller by them."""
    tops = [first]
    for row in rows:
        block, _first = _cost_block(_cost_lines(row, lang, room - 14), lang)
        tops.append(tops[-1] + height + (COST_PAD + block if block else 0.0))
    if not rows:
        tops.append(first + height)
    return tops


def draw_ruler(plan: Plan, sweep: SweepView, *, lang: str, narrow: bool = False) -> str:
    """The ruler chart; `narrow` draws the phone layout (techniques stacked) instead."""
    words = WORDS[lang]
    rows = ruler_table(plan, sweep)
    metrics = list(plan.ruler.metrics)
    if narrow:
        tops = _tops(rows, lang, N_HEAD_H, N_ROW_H, N_COST_W)
        cv = new_canvas("ruler-n", NARROW_W, tops[-1] + 6, INSET, lang, "ruler (narrow)")
        _narrow(cv, rows, tops, metrics, words, lang)
    else:
        tops = _tops(rows, lang, HEAD_H, ROW_H, W_COST_W)
        cv = new_canvas("ruler", WIDTH, tops[-1] + 16, INSET, lang, "ruler")
        _wide(cv, rows, tops, metrics, words, lang)
    summary = _summary(rows, words, lang)
    title = words["title"]
    sep = "；" if lang == "zh" else "; "
    return cv.svg(css_class="ruler", element_id="ruler-svg-n" if narrow else "ruler-svg",
                  title=title, desc=plan.ruler.sentence + " " + sep.join(summary))


__all__ = ["draw_ruler", "ruler_rows", "verdict"]
