"""compare: two or three quantities as ink bars on one scale from zero, each with its label above
and its number past its end, so which is bigger, and by how much, shows at a glance.

The bars are ink (neutral): none of them is running, new, stored, freed or idle (P14).
"""

from __future__ import annotations

from pipeline.draw.canvas import Canvas
from pipeline.draw.scene import SCENE_TOP, SCENE_Y1, SceneContext, SceneResult
from pipeline.fields.general.scenes.common import amount, non_negative, role_quantities
from pipeline.fields.general.scenes.rows import Row, card_scale, draw_rows, zoom_note

KIND = "compare"
TOP = SCENE_TOP + 4
MAX_BARS = 3


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    bars = role_quantities(cv, ctx, KIND, "bars")[:MAX_BARS]
    non_negative(cv, KIND, bars)
    rows = [Row(q.label, q.value, amount(q)) for q in bars]
    scale = card_scale(ctx, rows, [q.unit for q in bars])
    draw_rows(cv, ctx.lang, rows, TOP, SCENE_Y1, scale)
    zoom_note(cv, ctx, scale)
    biggest = max(bars, key=lambda q: q.value)
    tie = sum(1 for q in bars if q.value == biggest.value) > 1
    if ctx.lang == "zh":
        listed = "、".join(f"{q.label} {amount(q)}" for q in bars)
        verdict = "一样大" if tie else f"{biggest.label}最大"
        desc = f"对比图：{listed}，同一把尺子从零画起，{verdict}。"
    else:
        listed = ", ".join(f"{q.label} {amount(q)}" for q in bars)
        verdict = "they are equal" if tie else f"{biggest.label} is the largest"
        desc = f"Bars on one scale from zero: {listed}; {verdict}."
    return SceneResult(desc, True)
