"""lanes: one row per `lane` entry on one time axis, each row its segments in order, so who
waits and who works when shows at a glance.

Colours (P14): a lane's segments take turns, starting with a wait: the 1st, 3rd, 5th segment is
waiting (a grey outline: idle), the 2nd, 4th, 6th working (green: in progress). A lane that
starts working declares a first wait of 0, which takes no room and gets no label. Every
segment is labelled with its quantity's label and number: inside the bar when it fits there,
else the number inside and the label beside the bar, else the whole text beside it (the bars
are drawn thinner, with a band for those words, only when some segment needs it). A cast
bean (the panel's `focus` letters, one per lane in order) stands at the start of its lane,
green if the lane ends working, grey if it ends waiting; four lanes are too close for beans
one above the other, so theirs stand in two columns, zigzag.

The time axis is shared with the card's other panel when it is lanes too, in the same unit:
both panels draw at the scale of the longer of the two, so a faster fix is visibly shorter
(reader cc1: 303 ns and 116 ns were drawn the same length).
"""

from __future__ import annotations

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import INK, TINT_OPACITY, colour
from pipeline.draw.scene import SCENE_TOP, SCENE_X0, SCENE_X1, SceneContext, SceneResult
from pipeline.fields.general.example import QuantityView
from pipeline.fields.general.scenes.common import (
    SMALL,
    amount,
    draw_key,
    non_negative,
    partner_entries,
    refuse,
    role_entries,
    text_height,
    text_width,
)

KIND = "lanes"
MAX_LANES = 4
MAX_SEGMENTS = 6
LANES_TOP = SCENE_TOP + 2
AXIS_Y = 178.0
BEAN_X = SCENE_X0 + 15
WITH_BEANS_X0 = BEAN_X + 22
BEAN_ROOM = 38.0  # lanes closer than this (four of them) put their beans in two columns
ZIGZAG = 28.0  # the second column's offset: a bean's width and a little air
PLAIN_X0 = SCENE_X0 + 4
LANE_X1 = SCENE_X1 - 4
MAX_PITCH = 46.0
MAX_BAR_H = 22.0
SEG_SIZE = 14.0  # a segment's words: a lane has up to six of them
INNER_PAD = 4.0


def kind_of(index: int) -> str:
    return "waiting" if index % 2 == 0 else "running"


def _segment(cv: Canvas, eid: str, x: float, y: float, w: float, h: float, kind: str) -> None:
    rng = cv.rng(eid)
    if kind == "running":
        poly = rough.rect_poly(x, y, w, h)
        cv.shape(
            rough.jitter_poly(rng, poly, 0.6),
            fill=colour("running"),
            opacity=TINT_OPACITY + 0.1,
            colour=colour("running"),
            width=1.4,
        )
    else:
        cv.stroke(
            rough.jitter_poly(rng, rough.rect_poly(x, y + 2, w, h - 4), 0.6),
            colour("idle"),
            width=1.3,
        )


def fits_inside(text: str, lang: str, w: float, bar_h: float) -> bool:
    """Whether a segment's words fit inside its bar (the font's box may rise a little past the
    bar: its ascent is mostly empty above the letters)."""
    return (text_width(text, lang, SEG_SIZE) <= w - 2 * INNER_PAD
            and text_height(text, lang, SEG_SIZE) <= bar_h + 3)


def _label(
    cv: Canvas,
    lang: str,
    q: QuantityView,
    x: float,
    w: float,
    bar_y: float,
    bar_h: float,
    start: float,
) -> None:
    """The segment's label and number where they fit best (see the module docstring)."""
    full = f"{q.label} {amount(q)}"
    mid, cx = bar_y + bar_h / 2, x + w / 2

    def inside(text: str) -> bool:
        return fits_inside(text, lang, w, bar_h)

    if inside(full):
        cv.layout.place(full, x=cx, cy=mid, role="label", size=SEG_SIZE, floor=None, fill=INK)
        return
    beside = full
    number = amount(q)
    if inside(number):
        cv.layout.place(number, x=cx, cy=mid, role="label", size=SEG_SIZE, floor=None, fill=INK)
        beside = q.label
    h = text_height(beside, lang, SEG_SIZE)
    above, below = bar_y - h / 2 - 2, bar_y + bar_h + h / 2 + 2
    width = text_width(beside, lang, SEG_SIZE)
    # over their segment, moved in when it is near the lanes' start (the beans) or the edge
    edge = cv.layout.inset + 1
    cx = min(max(cx, start + width / 2), cv.width - edge - width / 2)
    alts = [(cx, below)] if below + h / 2 <= AXIS_Y - 3 else []  # never onto the time axis
    cv.layout.place(beside, x=cx, cy=above, role="label", size=SEG_SIZE, floor=None, alts=alts)


def partner_longest(ctx: SceneContext, units: set[str]) -> float:
    """The longest lane of the card's other panel when it draws lanes whose segments are all
    in `units` (one unit); else 0 (that panel's scale is its own)."""
    lanes = partner_entries(ctx, KIND, ("lane",))
    if not lanes or len(units) != 1:
        return 0.0
    shown = [quantities[:MAX_SEGMENTS] for _role, quantities in lanes]
    if any(q.unit not in units for lane in shown for q in lane):
        return 0.0
    return max(sum(q.value for q in lane) for lane in shown)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    lanes = role_entries(cv, ctx, KIND, "lane")[:MAX_LANES]
    if not lanes:
        raise refuse(cv, KIND, "needs at least one 'lane' entry in the panel's `show`")
    lanes = [lane[:MAX_SEGMENTS] for lane in lanes]
    for lane in lanes:
        non_negative(cv, KIND, lane)
    letters = [f for f in ctx.focus if len(f) == 1 and f.isupper()][: len(lanes)]
    pitch = min(MAX_PITCH, (AXIS_Y - 8 - LANES_TOP) / len(lanes))
    zigzag = ZIGZAG if letters and pitch < BEAN_ROOM and len(letters) > 1 else 0.0
    x0 = WITH_BEANS_X0 + zigzag if letters else PLAIN_X0
    units = {q.unit for lane in lanes for q in lane}
    longest = max([sum(q.value for q in lane) for lane in lanes]
                  + [partner_longest(ctx, units)])
    scale = (LANE_X1 - x0) / longest if longest > 0 else 0.0
    draw_key(cv, [("waiting", ctx.word("waiting")), ("running", ctx.word("working"))], SCENE_X0)
    # Tall bars with every segment's words inside when they all fit there; else a band above
    # each bar, as tall as the tallest words, for those that must stand beside their bar.
    bar_h = min(MAX_BAR_H, pitch - 6)
    band = 0.0
    if not all(fits_inside(f"{q.label} {amount(q)}", ctx.lang, q.value * scale, bar_h)
               for lane in lanes for q in lane if q.value > 0):
        band = max(text_height(f"{q.label} {amount(q)}", ctx.lang, SEG_SIZE) for lane in lanes
                   for q in lane) + 2
        bar_h = min(MAX_BAR_H, pitch - band - 2)
    top = LANES_TOP + ((AXIS_Y - 8 - LANES_TOP) - pitch * len(lanes)) / 2
    _axis(cv, ctx, x0, lanes)  # first: the segments' words keep clear of its word
    told = []
    for i, lane in enumerate(lanes):
        bar_y = top + i * pitch + (band if band else (pitch - bar_h) / 2)
        x = x0
        for j, q in enumerate(lane):
            w = q.value * scale
            if w > 0:
                _segment(cv, f"seg-{i}-{j}", x, bar_y, w, bar_h, kind_of(j))
            x += w
        x = x0
        for q in lane:  # words after shapes: a label may sit beside any bar
            w = q.value * scale
            if w > 0:
                _label(cv, ctx.lang, q, x, w, bar_y, bar_h, x0)
            x += w
        last = next((j for j in range(len(lane) - 1, -1, -1) if lane[j].value > 0), 0)
        if i < len(letters):
            state = "running" if kind_of(last) == "running" else "idle"
            cast.bean(
                cv, letters[i], BEAN_X + zigzag * (i % 2), bar_y + bar_h / 2 - 3, state,
                eid=f"lane-{i}", focus=False
            )
        told.append((letters[i] if i < len(letters) else str(i + 1), lane))
    return SceneResult(_desc(ctx.lang, told, ctx.word("waiting"), ctx.word("working")), True)


def _axis(cv: Canvas, ctx: SceneContext, x0: float, lanes: list[list[QuantityView]]) -> None:
    """The shared time axis: an arrow from the lanes' start, its word and unit at the end."""
    rng = cv.rng("axis")
    cv.stroke(
        rough.arrow(rng, (x0, AXIS_Y), (LANE_X1, AXIS_Y), 0.5, 0, 6)
        + rough.line(rng, (x0, AXIS_Y - 5), (x0, AXIS_Y + 5), 0.2, 1),
        width=1.3,
    )
    unit = next((q.unit for lane in lanes for q in lane if q.unit), "")
    word = ctx.word("time") + (f"（{unit}）" if ctx.lang == "zh" else f" ({unit})") * bool(unit)
    cv.layout.place(
        word, x=LANE_X1, cy=AXIS_Y + 11, role="axis", size=SMALL, anchor="end", floor=None
    )


def _desc(lang: str, told: list[tuple[str, list[QuantityView]]], waiting: str, working: str) -> str:
    parts = []
    for who, lane in told:
        segs = [
            f"{waiting if kind_of(j) == 'waiting' else working} {q.label} {amount(q)}"
            for j, q in enumerate(lane)
            if q.value > 0
        ]
        parts.append(f"{who}: " + (", ".join(segs) if lang == "en" else "，".join(segs)))
    if lang == "zh":
        return f"泳道图：{len(told)} 条泳道在同一条时间轴上；" + "；".join(parts) + "。"
    return f"Lanes on one time axis ({len(told)}): " + "; ".join(parts) + "."
