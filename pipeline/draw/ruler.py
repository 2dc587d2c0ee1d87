"""`draw_ruler` (P8): one chart, 2-3 metrics, every technique's measured effect from the sweep.

Rows are the concepts that name a sweep technique. Ink only (the state colours are reserved,
P14): a bold FILLED arrow with a check mark where the metric improves, a thin HOLLOW arrow with a
small cross where it is sacrificed, a short wavy dash where it barely moves; the arrow points the
way the number moved and the measured percentage sits next to it. Column heads say which way is
better; a key in the corner says what filled and hollow mean. `narrow=True` stacks each
technique's name over its cells for a phone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.artifacts.sim import SweepView, TechniqueView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.key import draw_tag
from pipeline.draw.palette import FAINT, INK, PAPER
from pipeline.plan.model import Effect, Plan

WIDTH = 800.0
INSET = 8.0
HEAD_H = 78.0
ROW_H = 42.0
NAME_W = 230.0
# narrow (phone) layout: about one viewBox unit per CSS px at 390 px
NARROW_W = 360.0
N_HEAD_CY = 58.0
N_HEAD_H = 104.0
N_ROW_H = 66.0
FLAT_PCT = 1.0  # |change| below this is "about the same"
ARROW_LEN = 26.0
BOLD_HALF = (4.0, 10.0)  # shaft and head half-widths of the "improves" arrow
THIN_HALF = (2.5, 7.0)  # ... and of the hollow "sacrifices" arrow
PCT_SIZE = {"better": 17.0, "worse": 14.0, "same": 14.0}
WORDS = {
    "zh": {"higher": "越高越好", "lower": "越低越好", "title": "标尺", "better": "改善",
           "worse": "牺牲", "same": "差不多"},
    "en": {"higher": "higher is better", "lower": "lower is better", "title": "Ruler",
           "better": "improves", "worse": "sacrifices", "same": "about the same"},
}


def verdict(pct: float, better: str) -> str:
    if abs(pct) < FLAT_PCT:
        return "same"
    return "better" if (pct > 0) == (better == "higher") else "worse"


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
    """The cell's arrow: filled bold (improves), hollow thin (sacrifices), wavy dash (same)."""
    rng = cv.rng(eid)
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
    """What filled and hollow mean, under the tag in the name column."""
    for kind, eid in (("better", "key-b"), ("worse", "key-w")):
        _mark(cv, eid, x, y, 1.0, kind)
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


CHANGE_SIGN = {"up": 1.0, "down": -1.0, "none": 0.0}
CITED = {"zh": "据文献", "en": "cited"}


def _cited_cell(cv: Canvas, i: int, j: int, x: float, cy: float, effect: Effect, better: str,
                lang: str) -> None:
    """A cited effect (a field without an engine): the verdict mark for its direction and the
    amount the quote writes, else the word that says it is a source's claim, not a measurement."""
    sign = CHANGE_SIGN[effect.change]
    kind = "same" if sign == 0 else verdict(sign * 100.0, better)
    _mark(cv, f"cell-{i}-{j}", x - 34, cy, sign, kind)
    if kind == "better":
        _check(cv, f"ok-{i}-{j}", x - 22, cy + 2)
    elif kind == "worse":
        _cross(cv, f"no-{i}-{j}", x - 19, cy + 2)
    cv.layout.place(effect.amount or CITED[lang], x=x - 6, cy=cy, role="label",
                    size=PCT_SIZE[kind], anchor="start", floor=None)


def _effect(concept: Any, metric_id: str) -> Effect | None:
    return next((e for e in concept.effects if e.metric == metric_id), None)


def _any_cell(cv: Canvas, i: int, j: int, x: float, cy: float, concept: Any, metric: Any,
              techniques: Mapping[str, TechniqueView], lang: str) -> None:
    tech = techniques.get(concept.technique or "")
    effect = _effect(concept, metric.id) if tech is None else None
    if effect is not None:
        _cited_cell(cv, i, j, x, cy, effect, metric.better, lang)
    else:
        _cell(cv, i, j, x, cy, tech.change_pct.get(metric.id) if tech else None, metric.better)


def _cell(cv: Canvas, i: int, j: int, x: float, cy: float, pct: float | None,
          better: str) -> None:
    """One technique x metric cell centred on x: the verdict mark and the measured %."""
    if pct is None:
        cv.layout.place("–", x=x, cy=cy, role="label", size=14, floor=None)
        return
    kind = verdict(float(pct), better)
    _mark(cv, f"cell-{i}-{j}", x - 34, cy, float(pct), kind)
    if kind == "better":
        _check(cv, f"ok-{i}-{j}", x - 22, cy + 2)
    elif kind == "worse":
        _cross(cv, f"no-{i}-{j}", x - 19, cy + 2)
    # round() first: a small negative change reads "+0%", never "-0%"
    cv.layout.place(f"{round(pct):+d}%", x=x - 6, cy=cy, role="label", size=PCT_SIZE[kind],
                    anchor="start", floor=None)


def _wide(cv: Canvas, rows: list[Any], techniques: Mapping[str, TechniqueView],
          metrics: list[Any], words: Mapping[str, str], lang: str) -> None:
    height = cv.height
    draw_tag(cv, lang, right=NAME_W - 40, cy=24)
    _key(cv, words, 54, INSET + 18)
    col = (WIDTH - INSET - 10 - NAME_W) / max(len(metrics), 1)
    _heads(cv, metrics, words, NAME_W, col, 26, 17)
    rng = cv.rng("grid")
    grid = "".join(rough.line(rng, (NAME_W + col * j, 16), (NAME_W + col * j, height - 12), 0.5, 1)
                   for j in range(1, len(metrics)))
    for i in range(len(rows)):
        y = HEAD_H + ROW_H * i
        grid += rough.line(rng, (INSET + 6, y), (WIDTH - INSET - 6, y), 0.5, 1)
    cv.stroke(grid, FAINT, width=1.0)
    for i, concept in enumerate(rows):
        cy = HEAD_H + ROW_H * (i + 0.5)
        name = concept.name if lang == "zh" else concept.name_en
        cv.layout.place(name, x=INSET + 10, cy=cy, role="label", size=16, anchor="start",
                        max_width=NAME_W - 24)
        for j, m in enumerate(metrics):
            _any_cell(cv, i, j, NAME_W + col * (j + 0.5), cy, concept, m, techniques, lang)


def _summary(rows: list[Any], techniques: Mapping[str, TechniqueView], metrics: list[Any],
             words: Mapping[str, str], lang: str) -> list[str]:
    """Every measured cell in words, for the `<desc>` (the same in both layouts)."""
    out = []
    for concept in rows:
        name = concept.name if lang == "zh" else concept.name_en
        tech = techniques.get(concept.technique or "")
        for m in metrics:
            pct = tech.change_pct.get(m.id) if tech is not None else None
            effect = _effect(concept, m.id) if tech is None else None
            if pct is not None:
                out.append(f"{name} {m.name} {pct:+.0f}% ({words[verdict(float(pct), m.better)]})")
            elif effect is not None:
                sign = CHANGE_SIGN[effect.change]
                said = words["same"] if sign == 0 else words[verdict(sign * 100.0, m.better)]
                out.append(f"{name} {m.name} {effect.amount or CITED[lang]} ({said})")
    return out


def _narrow(cv: Canvas, rows: list[Any], techniques: Mapping[str, TechniqueView],
            metrics: list[Any], words: Mapping[str, str], lang: str) -> None:
    """Phone layout: the key and tag on top, the metric heads once, then per technique its name
    on one line and its cells under the heads."""
    draw_tag(cv, lang, right=NARROW_W - INSET - 2, cy=22)
    _key(cv, words, 22, INSET + 14)
    col = (NARROW_W - 2 * INSET) / max(len(metrics), 1)
    _heads(cv, metrics, words, INSET, col, N_HEAD_CY, 15)
    rng = cv.rng("grid")
    grid = ""
    for i, concept in enumerate(rows):
        top = N_HEAD_H + N_ROW_H * i
        grid += rough.line(rng, (INSET + 4, top), (NARROW_W - INSET - 4, top), 0.5, 1)
        name = concept.name if lang == "zh" else concept.name_en
        cv.layout.place(name, x=INSET + 6, cy=top + 16, role="label", size=15, anchor="start",
                        max_width=NARROW_W - 2 * INSET - 12)
        for j, m in enumerate(metrics):
            _any_cell(cv, i, j, INSET + col * (j + 0.5) + 8, top + 44, concept, m, techniques,
                      lang)
    cv.stroke(grid, FAINT, width=1.0)


def ruler_rows(plan: Plan, sweep: SweepView) -> list[Any]:
    """The ruler's rows, in page order: concepts standing for a measured technique of the sweep,
    and concepts whose effects a source states (a field without an engine)."""
    measured = {t.id for t in sweep.techniques}
    return [c for c in plan.concepts if (c.technique and c.technique in measured)
            or (c.effects and not c.technique)]


def draw_ruler(plan: Plan, sweep: SweepView, *, lang: str, narrow: bool = False) -> str:
    """The ruler chart; `narrow` draws the phone layout (techniques stacked) instead."""
    words = WORDS[lang]
    techniques = {t.id: t for t in sweep.techniques}
    rows = ruler_rows(plan, sweep)
    metrics = list(plan.ruler.metrics)
    if narrow:
        height = N_HEAD_H + N_ROW_H * max(len(rows), 1) + 6
        cv = new_canvas("ruler-n", NARROW_W, height, INSET, lang, "ruler (narrow)")
        _narrow(cv, rows, techniques, metrics, words, lang)
    else:
        height = HEAD_H + ROW_H * max(len(rows), 1) + 16
        cv = new_canvas("ruler", WIDTH, height, INSET, lang, "ruler")
        _wide(cv, rows, techniques, metrics, words, lang)
    summary = _summary(rows, techniques, metrics, words, lang)
    title = words["title"]
    sep = "；" if lang == "zh" else "; "
    return cv.svg(css_class="ruler", element_id="ruler-svg-n" if narrow else "ruler-svg",
                  title=title, desc=plan.ruler.sentence + " " + sep.join(summary))
