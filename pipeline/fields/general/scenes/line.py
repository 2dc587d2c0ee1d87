"""line: one or two series of values at equal steps in order (a sum after 0, 10, 20 and 30
years; a queue's length minute by minute), each drawn as an ink line through its points on
one scale from zero, so a straight line and a curve that steepens show apart. Each line ends
in its last quantity's label and number, the points between carry their numbers where there
is room, and the first line's start is written under the axis. A second line
is dashed (both are ink: a series is no state, P14).

The points are the worked example's own quantities (a derived one computed by tujie), so the
curve's height at every step is a number the walkthrough can show.
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.layout import Anchor, family_for, text_box
from pipeline.draw.palette import INK
from pipeline.draw.scene import (
    MIN_TEXT,
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SCENE_Y1,
    SceneContext,
    SceneResult,
)
from pipeline.fields.general.example import QuantityView
from pipeline.fields.general.scenes.common import (
    LABEL_SIZE,
    amount,
    fitted_height,
    non_negative,
    partner_quantities,
    refuse,
    role_entries,
    spread,
)
from pipeline.fields.general.scenes.rows import ZOOM_AT

KIND = "line"
PLOT_X0 = SCENE_X0 + 8
PLOT_X1 = 222.0  # the end labels take the rest of the width
PLOT_TOP = SCENE_TOP + 30
AXIS_Y = SCENE_Y1 - 22
MAX_SERIES = 2
DOT = 2.6
POINT_SIZE = MIN_TEXT  # a number between a line's ends: the smallest readable size


def _y(value: float, top: float) -> float:
    return AXIS_Y - value / top * (AXIS_Y - PLOT_TOP) if top > 0 else AXIS_Y


def _place_if_free(
    cv: Canvas, text: str, lang: str, spots: list[tuple[float, float, Anchor]]
) -> None:
    family = family_for(text, lang)
    for x, cy, anchor in spots:
        box = text_box([text], family, POINT_SIZE, x, cy, anchor)
        # right of the height axis (a number over its ink would lose a digit) and free
        if box.x0 > PLOT_X0 + 1 and cv.layout.free(box):
            cv.layout.place(text, x=x, cy=cy, role="label", size=POINT_SIZE, anchor=anchor,
                            floor=None)
            return


def _card_top(ctx: SceneContext, points: list[QuantityView]) -> float:
    """The height axis's top: this panel's highest point, or both panels' when the card's other
    panel is a line in the same unit that would not flatten this one past seeing (reader hh6:
    the same 10,000 -> 31,000 line was steep in one panel and flat in the other)."""
    own = max(q.value for q in points)
    other = partner_quantities(ctx, KIND, ("series",))
    theirs = other["series"] if other else []
    if not theirs or len({q.unit for q in [*points, *theirs]}) != 1:
        return own
    both = max(own, *(q.value for q in theirs))
    return both if own > 0 and both / own < ZOOM_AT else own


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    series = role_entries(cv, ctx, KIND, "series")[:MAX_SERIES]
    if not series:
        raise refuse(cv, KIND, "needs a 'series' entry in the panel's `show`")
    for points in series:
        non_negative(cv, KIND, points)
        if len(points) < 2:
            raise refuse(cv, KIND, "draws a line through 2 or more points: give a series 2-8 values")
    top = _card_top(ctx, [q for points in series for q in points])
    steps = max(len(p) for p in series)
    pitch = (PLOT_X1 - PLOT_X0) / (steps - 1)
    # the axes: the steps run right (unnamed: they may be years, minutes or a function's
    # inputs; the points' labels say which); the height is the quantity, from zero
    cv.stroke(rough.arrow(cv.rng("axis-x"), (PLOT_X0 - 4, AXIS_Y), (PLOT_X1 + 14, AXIS_Y)), width=1.4)
    cv.stroke(rough.line(cv.rng("axis-y"), (PLOT_X0, AXIS_Y + 4), (PLOT_X0, PLOT_TOP - 6), 0.4, 2),
              width=1.2)
    ends: list[tuple[float, float, QuantityView]] = []
    for k, points in enumerate(series):
        xy = [(PLOT_X0 + i * pitch, _y(q.value, top)) for i, q in enumerate(points)]
        rng = cv.rng(f"series-{k}")
        path = "".join(rough.line(rng, a, b, 0.5, 1) for a, b in zip(xy, xy[1:], strict=False))
        cv.stroke(path, width=2.0 if k == 0 else 1.8, dashed=k == 1)
        for x, y in xy:
            cv.fill(rough.smooth_closed(rough.ellipse_points(x, y, DOT, DOT)), INK)
        ends.append((xy[-1][0], xy[-1][1], points[-1]))
    # each line's end: its label and number, right of the plot, in one column
    room = SCENE_X1 - PLOT_X1 - 22
    texts = [f"{q.label} {amount(q)}" for _x, _y0, q in ends]
    heights = [fitted_height(cv, t, ctx.lang, LABEL_SIZE, room, 2) for t in texts]
    order = sorted(range(len(ends)), key=lambda i: ends[i][1])
    centres = spread([ends[i][1] for i in order], [heights[i] for i in order], SCENE_TOP + 4,
                     SCENE_Y1 - 4, 3.0)
    if centres is None:
        raise refuse(cv, KIND, "cannot write both lines' end labels: shorten their labels")
    for c, i in zip(centres, order, strict=True):
        cv.layout.place(texts[i], x=PLOT_X1 + 20, cy=c, role="label", size=LABEL_SIZE,
                        anchor="start", max_width=room, max_lines=2)
        cv.stroke(rough.line(cv.rng(f"lead-{i}"), (ends[i][0] + 4, ends[i][1]),
                             (PLOT_X1 + 17, c), 0.3, 1), width=0.9)
    # the points between: each number beside its point where there is room, off the line (a
    # rising line leaves the upper left of a point free above it, the lower right below it):
    # the higher line's numbers above it, the lower line's below; else left to the <desc>
    upper = max(range(len(series)), key=lambda k: (series[k][-1].value, -k))
    for k, points in enumerate(series):
        for i, q in enumerate(points[1:-1], start=1):
            x, y = PLOT_X0 + i * pitch, _y(q.value, top)
            above: tuple[float, float, Anchor] = (x - 3, y - 10, "end")
            below: tuple[float, float, Anchor] = (x + 3, y + 10, "start")
            spots = [above, below] if k == upper else [below, above]
            _place_if_free(cv, amount(q), ctx.lang, spots)
    # where the first line starts, under the axis (its point is the first on the left)
    first = series[0][0]
    cv.layout.place(f"{first.label} {amount(first)}", x=PLOT_X0 - 4, cy=AXIS_Y + 12,
                    role="label", size=LABEL_SIZE - 1, anchor="start",
                    max_width=PLOT_X1 - PLOT_X0 - 30)
    lines = []
    for points in series:
        listed = ("、" if ctx.lang == "zh" else ", ").join(amount(q) for q in points)
        lines.append(f"{points[-1].label}：{listed}" if ctx.lang == "zh"
                     else f"{points[-1].label}: {listed}")
    if ctx.lang == "zh":
        desc = "折线图，同一把尺子从零画起，从左到右依次：" + "；".join(lines) + "。"
    else:
        desc = "Lines on one scale from zero, in order left to right: " + "; ".join(lines) + "."
    return SceneResult(desc, True)
