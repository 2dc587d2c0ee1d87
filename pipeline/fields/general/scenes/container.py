"""container: a budget (money, time, memory) drawn as an open box whose capacity line is the
`capacity` quantity, filled from the bottom by the `parts`, all on one scale.

Parts are ink (neutral, alternating hachures so neighbours part); `unused` parts, stacked on
them, take room and do no work (padding, fields nobody reads) and are drawn empty in grey dashes
(idle, P14); what rises above the capacity line is red dashed (over the limit, P14) and labelled
with how much; room left under the line is left blank (empty) and labelled with how much. Labels stand in a column to the right, each
joined to its part by a pen line; "how much over / left" is capacity minus the parts' sum,
computed here and written in the example's number format. When the card's other panel is a
container in the same unit, both share one scale (issue 21.2): the taller of the two fills the
height, so 46000 is drawn shorter than 75000 across the card.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import INK, colour
from pipeline.draw.scene import SCENE_TOP, SCENE_Y1, SceneContext, SceneResult
from pipeline.fields.general.formula import number_text
from pipeline.fields.general.scenes.common import (
    HATCH_OPACITY,
    LABEL_SIZE,
    NEUTRAL_GAP,
    SMALL,
    amount,
    fitted_height,
    leader,
    non_negative,
    partner_quantities,
    refuse,
    role_quantities,
    spread,
    text_height,
    text_width,
    with_unit,
)

KIND = "container"
BOX_X0, BOX_X1 = 36.0, 136.0
BOTTOM = 192.0
HIGHEST = SCENE_TOP + 8  # the top of the tallest thing drawn (capacity or the overflowing stack)
LABEL_X = 166.0
LABEL_RIGHT = 384.0
LIP = 8.0  # the walls rise this far above the capacity line
PAD = 3.0  # parts sit this far inside the walls
UNUSED_INSET = 4.0  # an unused part's dashed outline sits this far inside its slice
# the column's text size and the gap between two labels: roomy first, then the smallest
COLUMN_SETTINGS = ((LABEL_SIZE, 5.0), (SMALL, 1.5))
# the column may use the top strip's height (this scene has no key there: only the 示意值 tag,
# which the layout keeps it clear of) and reaches to 4 px above the caption's rule
COLUMN_TOP, COLUMN_BOTTOM = SCENE_TOP - 4, SCENE_Y1 + 2
# light enough under the dashes; page.css lays exactly this opacity on thicker over the dark board
OVER_OPACITY = 0.3


@dataclass(frozen=True)
class Label:
    text: str
    target: float  # the y it points at
    anchor: float  # the x its pen line starts from


def _segment(cv: Canvas, eid: str, y0: float, y1: float, angle: float, over: bool,
             unused: bool = False) -> None:
    """One part's slice between y0 (top) and y1: ink below the line (grey dashes, empty, when
    it is unused room), red dashed above it."""
    x, w, h = BOX_X0 + PAD, BOX_X1 - BOX_X0 - 2 * PAD, y1 - y0
    rng = cv.rng(eid)
    if h < 1.5:
        cv.stroke(
            rough.line(rng, (x, y1), (x + w, y1), 0.3, 1),
            colour("freed") if over else colour("idle") if unused else INK,
            width=1.4,
            dashed=over or unused,
        )
        return
    poly = rough.rect_poly(x, y0, w, h)
    if unused and not over:  # inset, so its dashes do not melt into the box's walls
        i = min(UNUSED_INSET, h / 4)
        cv.stroke(rough.rect(rng, x + i, y0 + i, w - 2 * i, h - 2 * i, 0.5, 1), colour("idle"),
                  width=1.8, dashed=True)
    elif over:
        cv.fill(poly_d(poly), colour("freed"), OVER_OPACITY)
        cv.stroke(rough.rect(rng, x, y0, w, h, 0.5, 1), colour("freed"), width=1.6, dashed=True)
    else:
        cv.stroke(
            rough.hachure(rng, poly, NEUTRAL_GAP, angle), INK, width=0.9, opacity=HATCH_OPACITY
        )
        cv.stroke(rough.rect(rng, x, y0, w, h, 0.5, 2), width=1.4)


def _label(cv: Canvas, lang: str, text: str, target: float, anchor: float) -> Label:
    return Label(text, target, anchor)


def partner_top(ctx: SceneContext, units: set[str]) -> float:
    """The height (capacity or the sum of its used and unused parts, whichever is more) the card's
    other panel needs
    when it is a container whose numbers are all in `units` (one unit); else 0."""
    got = partner_quantities(ctx, KIND, ("capacity", "parts", "unused"))
    if got is None or len(units) != 1 or not got["capacity"]:
        return 0.0
    parts = got["parts"] + got["unused"]
    if any(q.unit not in units for q in got["capacity"] + parts):
        return 0.0
    return max(got["capacity"][0].value, sum(q.value for q in parts))


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    cap = role_quantities(cv, ctx, KIND, "capacity")[0]
    used = role_quantities(cv, ctx, KIND, "parts")
    unused = role_quantities(cv, ctx, KIND, "unused", required=False)
    parts = used + unused
    non_negative(cv, KIND, [cap, *parts])
    total = sum(q.value for q in parts)
    top = max(cap.value, total, partner_top(ctx, {cap.unit, *(q.unit for q in parts)}))
    scale = (BOTTOM - HIGHEST) / top if top > 0 else 0.0
    rim = BOTTOM - cap.value * scale
    rng = cv.rng("box")
    cv.stroke(
        rough.polyline(
            rng, [(BOX_X0, rim - LIP), (BOX_X0, BOTTOM), (BOX_X1, BOTTOM), (BOX_X1, rim - LIP)], 0.8
        ),
        width=2.0,
    )
    labels: list[Label] = []
    y = BOTTOM
    for k, q in enumerate(parts):
        y_top = y - q.value * scale
        angle = rough.HACHURE_ANGLE if k % 2 == 0 else rough.CROSS_ANGLE
        if y_top < rim:  # the slice above the capacity line is over the limit
            _segment(cv, f"over-{k}", y_top, min(y, rim), angle, True)
        if y > rim:
            _segment(cv, f"part-{k}", max(y_top, rim), y, angle, False, k >= len(used))
        labels.append(_label(cv, ctx.lang, f"{q.label} {amount(q)}", (y + y_top) / 2, BOX_X1 + 2))
        y = y_top
    cv.stroke(
        rough.line(cv.rng("capacity"), (BOX_X0 - 10, rim), (BOX_X1 + 10, rim), 0.5, 2), width=2.4
    )
    sep = "：" if ctx.lang == "zh" else ": "
    labels.append(
        _label(
            cv, ctx.lang, f"{ctx.word('capacity')}{sep}{cap.label} {amount(cap)}", rim, BOX_X1 + 10
        )
    )
    diff = cap.value - total
    region = ""
    if diff != 0:
        word = ctx.word("left") if diff > 0 else ctx.word("over")
        region = f"{word} {with_unit(number_text(abs(diff)), cap.unit)}"
        _region_label(cv, ctx.lang, region, (y + rim) / 2, abs(y - rim), labels)
    _column(cv, ctx.lang, labels)
    listed = ("、" if ctx.lang == "zh" else ", ").join(f"{q.label} {amount(q)}" for q in parts)
    if ctx.lang == "zh":
        fits = region or "正好装满"
        desc = f"容器图：容量是 {cap.label} {amount(cap)}，里面装着 {listed}；{fits}。"
    else:
        fits = region or "exactly full"
        desc = f"A container of {cap.label} {amount(cap)} filled by {listed}: {fits}."
    return SceneResult(desc, True)


def _region_label(
    cv: Canvas, lang: str, text: str, cy: float, height: float, labels: list[Label]
) -> None:
    """'left 500' / 'over 500': inside its region when it fits there, else in the column."""
    inner = BOX_X1 - BOX_X0 - 2 * PAD - 6
    if (
        height >= text_height(text, lang, LABEL_SIZE) + 6
        and text_width(text, lang, LABEL_SIZE) <= inner
    ):
        cv.layout.place(
            text, x=(BOX_X0 + BOX_X1) / 2, cy=cy, role="label", size=LABEL_SIZE, floor=None
        )
        return
    labels.append(_label(cv, lang, text, cy, BOX_X1 + 2))


def _column(cv: Canvas, lang: str, labels: list[Label]) -> None:
    """The labels top to bottom beside the box, each near the height it points at; a crowded
    column is set at the smallest size, with the layout's least gap."""
    order = sorted(labels, key=lambda lb: lb.target)
    room = LABEL_RIGHT - LABEL_X
    for size, gap in COLUMN_SETTINGS:
        heights = [fitted_height(cv, lb.text, lang, size, room, 2) for lb in order]
        centres = spread([lb.target for lb in order], heights, COLUMN_TOP, COLUMN_BOTTOM, gap)
        if centres is not None:
            break
    else:
        raise refuse(cv, KIND, f"has {len(labels)} labels, more than its column holds: show "
                     "fewer parts or shorter labels")
    for k, (lb, cy) in enumerate(zip(order, centres, strict=True)):
        cv.layout.place(lb.text, x=LABEL_X, cy=cy, role="label", size=size, anchor="start",
                        max_width=room, max_lines=2)
        leader(cv, f"leader-{k}", (lb.anchor, lb.target), (LABEL_X - 5, cy))
