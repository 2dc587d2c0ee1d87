"""before_after: one quantity before and after a change, as two ink bars on one scale from zero,
with the change between them: a pen arrow under the after bar from where "before" ended (a
tick) to where "after" ends, and
the difference written with its sign and, when "before" is not zero, as a percentage of it.

The change is computed here from the two shown numbers (after − before), written with the
worked example's own number format (`formula.number_text`); the bars are ink (P14: a change
is neither running, new, stored, freed nor idle).
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.scene import SCENE_TOP, SceneContext, SceneResult
from pipeline.fields.general.example import QuantityView
from pipeline.fields.general.formula import number_text
from pipeline.fields.general.scenes.common import (
    LABEL_SIZE,
    amount,
    non_negative,
    role_quantities,
    with_unit,
)
from pipeline.fields.general.scenes.rows import Row, card_scale, draw_rows, zoom_note

KIND = "before_after"
TOP = SCENE_TOP + 2
ROWS_BOTTOM = 160.0
ARROW_GAP = 7.0  # below the after bar
MIN_ARROW = 10.0  # px: a shorter change gets no arrow (its head would hide it)
MINUS = "−"


def change_texts(before: QuantityView, after: QuantityView) -> tuple[str, str]:
    """('+500', '+25%') — the change and its share of `before` ('' when before is zero);
    ('0', '') when nothing changed."""
    diff = after.value - before.value
    sign = "+" if diff > 0 else MINUS if diff < 0 else ""
    text = sign + number_text(abs(diff))
    if before.value == 0 or diff == 0:
        return text, ""
    pct = abs(diff) / abs(before.value) * 100
    shown = number_text(round(pct)) if pct >= 10 else number_text(round(pct, 1))
    if round(pct) == 100 and pct != 100:
        # 100 → 0.5 is −99.5%, not −100%: a whole percent would say the quantity vanished
        shown = number_text(pct)
    return text, f"{sign}{shown}%"


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    before = role_quantities(cv, ctx, KIND, "before")[0]
    after = role_quantities(cv, ctx, KIND, "after")[0]
    non_negative(cv, KIND, [before, after])
    sep = "：" if ctx.lang == "zh" else ": "
    rows = [
        Row(f"{ctx.word('before')}{sep}{before.label}", before.value, amount(before)),
        Row(f"{ctx.word('after')}{sep}{after.label}", after.value, amount(after)),
    ]
    scale = card_scale(ctx, rows, [before.unit, after.unit])
    drawn = draw_rows(cv, ctx.lang, rows, TOP, ROWS_BOTTOM, scale)
    zoom_note(cv, ctx, scale)
    x_before, x_after = drawn[0].end, drawn[1].end
    arrow_y = drawn[1].bottom + ARROW_GAP
    # where "before" ended, a tick under the after bar: the change is measured from it
    guide = rough.line(
        cv.rng("guide"), (x_before, drawn[1].bottom + 1), (x_before, arrow_y + 5), 0.2, 1
    )
    cv.stroke(guide, width=1.4)
    if abs(x_after - x_before) >= MIN_ARROW:
        cv.stroke(
            rough.arrow(cv.rng("change"), (x_before, arrow_y), (x_after, arrow_y), 0.4, 0, 6),
            width=1.6,
        )
    diff, pct = change_texts(before, after)
    if before.value == after.value:
        said = ctx.word("same")
    else:
        said = f"{ctx.word('change')} {with_unit(diff, after.unit)}"
        if pct:
            said += f"（{pct}）" if ctx.lang == "zh" else f" ({pct})"
    cx = min(max((x_before + x_after) / 2, 110.0), 290.0)
    cv.layout.place(said, x=cx, cy=arrow_y + 18, role="label", size=LABEL_SIZE + 1, max_width=360)
    if ctx.lang == "zh":
        desc = (
            f"前后对比：之前 {before.label} {amount(before)}，之后 {after.label} "
            f"{amount(after)}，{said}。"
        )
    else:
        desc = (
            f"Before and after: {before.label} {amount(before)} before, {after.label} "
            f"{amount(after)} after; {said}."
        )
    return SceneResult(desc, True)
