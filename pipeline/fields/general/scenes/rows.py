"""Horizontal bars on one scale, one row each: the label above, the bar from the zero line, the
number just past the bar's end. `compare` draws two or three of them, `before_after` two.

The scale is the largest that leaves every row's number room inside the panel, so a bar's
length is its value times one factor shared by all rows (only a non-zero sliver is widened to
stay visible: `common.MIN_SLIVER`). When the card's other panel draws bars of the same unit too,
the scale is the one that fits both panels (`card_scale`): a number is the same length on both
sides of the card (issue 21.2: same scale), so 69000 after a sale is shorter than 75000 before
— unless the shared scale would leave this panel only slivers; then it keeps its own and says
how many times larger it is drawn (`ZOOM_AT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.scene import SCENE_TOP, SCENE_X0, SCENE_X1, SCENE_Y0, SceneContext
from pipeline.fields.general.formula import number_text
from pipeline.fields.general.scenes.common import (
    LABEL_SIZE,
    amount,
    bar_length,
    neutral_bar,
    partner_quantities,
    text_height,
    text_width,
)

ZERO_X = SCENE_X0 + 6  # the zero line every bar starts from
RIGHT = SCENE_X1 - 2
NUMBER_GAP = 7.0  # between a bar's end and its number
MAX_BAR_H = 26.0
LABEL_GAP = 5.0
ZOOM_RIGHT = 290.0  # the panel's tag sits right of this in the top strip


@dataclass(frozen=True)
class Row:
    label: str  # what the row is (the quantity's label, maybe with a word before it)
    value: float
    number: str  # the quantity's number with its unit, as written past the bar


@dataclass(frozen=True)
class DrawnRow:
    end: float  # x of the bar's end
    top: float
    bottom: float


def scale_for(rows: Sequence[Row], lang: str) -> float:
    """Units per px so that every row's bar, and the number past it, fit before RIGHT."""
    scale = float("inf")
    for row in rows:
        if row.value > 0:
            room = RIGHT - ZERO_X - NUMBER_GAP - text_width(row.number, lang, LABEL_SIZE)
            scale = min(scale, max(0.0, room) / row.value)
    return 0.0 if scale == float("inf") else scale


# the scenes that draw their quantities as rows, and the roles whose quantities are the bars
ROW_ROLES = {"compare": ("bars",), "before_after": ("before", "after")}


def partner_rows(ctx: SceneContext) -> list[tuple[Row, str]]:
    """The (row, unit) bars the card's other panel draws, when it is a row scene of a worked
    example; [] otherwise (or when it names a quantity its example lacks: it refuses itself)."""
    roles = tuple(dict.fromkeys(r for rs in ROW_ROLES.values() for r in rs))
    got = partner_quantities(ctx, tuple(ROW_ROLES), roles)
    if got is None:
        return []
    return [(Row(q.label, q.value, amount(q)), q.unit) for role in roles for q in got[role]]


# When the shared scale would draw this panel's longest bar at less than 1/ZOOM_AT of the length
# its own scale gives, its bars are slivers whose difference no reader can see (an error of 263
# falling to 44 beside the other panel's 37991): the panel keeps its own scale and says by how
# much it is enlarged (`zoom_note`).
ZOOM_AT = 8.0


@dataclass(frozen=True)
class Scale:
    px: float  # px per unit
    zoom: float | None = None  # how many times the other panel's scale, when not shared


def card_scale(ctx: SceneContext, rows: Sequence[Row], units: Sequence[str]) -> Scale:
    """`scale_for` the panel's rows, or for both panels' rows when the other panel's bars are
    all in the same unit as these (one scale across the card), unless that would shrink this
    panel's bars past seeing (`ZOOM_AT`)."""
    own = scale_for(rows, ctx.lang)
    other = partner_rows(ctx)
    if not other or len(set(units) | {u for _, u in other}) != 1:
        return Scale(own)
    both = scale_for([r for r, _ in other], ctx.lang)
    if both <= 0 or own <= both:
        return Scale(own)
    if own / both >= ZOOM_AT:
        return Scale(own, own / both)
    return Scale(both)


def zoom_note(cv: Canvas, ctx: SceneContext, scale: Scale) -> None:
    """'drawn 140× larger, to be seen' in the top strip, left of the tag, when the
    panel keeps its own scale."""
    if scale.zoom is None:
        return
    times = number_text(float(f"{scale.zoom:.2g}"))
    cv.layout.place(ctx.word("zoom").format(n=times), x=ZERO_X, cy=(SCENE_Y0 + SCENE_TOP) / 2,
                    role="label", size=LABEL_SIZE, anchor="start", max_width=ZOOM_RIGHT - ZERO_X)


def draw_rows(
    cv: Canvas, lang: str, rows: Sequence[Row], top: float, bottom: float, scale: Scale
) -> list[DrawnRow]:
    """The rows between `top` and `bottom`, bars `scale` px per unit; where each bar ended."""
    pitch = (bottom - top) / len(rows)
    label_h = max(text_height(r.label, lang, LABEL_SIZE) for r in rows)
    bar_h = min(MAX_BAR_H, pitch - label_h - LABEL_GAP - 6)
    out = []
    for k, row in enumerate(rows):
        row_top = top + k * pitch
        cv.layout.place(
            row.label,
            x=ZERO_X,
            cy=row_top + label_h / 2,
            role="label",
            size=LABEL_SIZE,
            anchor="start",
            max_width=RIGHT - ZERO_X,
        )
        y = row_top + label_h + LABEL_GAP
        w = bar_length(row.value, scale.px)
        if w > 0:
            neutral_bar(
                cv,
                f"bar-{k}",
                ZERO_X,
                y,
                w,
                bar_h,
                rough.HACHURE_ANGLE if k % 2 == 0 else rough.CROSS_ANGLE,
            )
        cv.layout.place(
            row.number,
            x=ZERO_X + w + NUMBER_GAP,
            cy=y + bar_h / 2,
            role="label",
            size=LABEL_SIZE,
            anchor="start",
            floor=None,
        )
        out.append(DrawnRow(ZERO_X + w, y, y + bar_h))
    # the zero line, drawn at each bar only so it never runs through a label
    zero = "".join(
        rough.line(cv.rng(f"zero-{k}"), (ZERO_X, r.top - 3), (ZERO_X, r.bottom + 3), 0.3, 2)
        for k, r in enumerate(out)
    )
    cv.stroke(zero, width=1.8)
    return out
