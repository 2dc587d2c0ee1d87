"""scaling: MFU against the number of GPUs, one point per cluster size of the scaling run (GPUs
evenly spaced as they double), the panel's own setting inked with its MFU written at each point,
the other setting pale, so the card's two panels show the same two curves with the emphasis
swapped. The key says what each setting does with the batch (fixed, or so many sequences per
GPU), read off the points' global batches.

Every number is the run's `points` and `other_points` (`sim.presets.training`, `sim train` at
each size); MFU = model FLOPs done / the GPUs' dense bf16 peak.
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import FAINT, INK
from pipeline.errors import InputError
from pipeline.fields.training.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    number,
)
from pipeline.fields.training.view import ScalePoint, TrainingView

X0, X1 = 60.0, 360.0
Y_TOP, Y_BOT = 72.0, 160.0
TICK_CY = Y_BOT + 11.0
TITLE_CY = 189.0
Y_TITLE_CY = 50.0
DOT_R = 3.2
GRID = 10.0  # MFU gridlines every 10 points
TEXT = {
    "zh": {"fixed": "固定每步 {g} 条", "per_gpu": "每张 GPU {g} 条", "y": "MFU（%）",
           "x": "GPU 数"},
    "en": {"fixed": "fixed {g} sequences", "per_gpu": "{g} per GPU", "y": "MFU (%)",
           "x": "GPUs"},
}


def batch_words(points: tuple[ScalePoint, ...], lang: str) -> str:
    words = TEXT[lang]
    if len({p.global_batch for p in points}) == 1:
        return words["fixed"].format(g=points[0].global_batch)
    return words["per_gpu"].format(g=points[0].global_batch // points[0].gpus)


def _mfu(p: ScalePoint) -> float:
    return 100.0 * (p.step.mfu or 0.0)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    view: TrainingView = ctx.run
    own, other = view.points, view.other_points
    if len(own) < 2:
        raise InputError(f"scaling scene: scenario {view.scenario!r} has no scaling points; "
                         "draw it from the scaling scenario")
    words = TEXT[ctx.lang]
    top = GRID * (int(max(_mfu(p) for p in own + other) // GRID) + 1)

    def px(i: int) -> float:
        return X0 + (i + 0.5) * (X1 - X0) / len(own)

    def py(v: float) -> float:
        return Y_BOT - v / top * (Y_BOT - Y_TOP)

    x = SCENE_X0
    for points, ink in ((own, INK), (other, FAINT)):
        if not points:
            continue
        cv.stroke(rough.line(cv.rng(f"key-{ink}"), (x, KEY_CY), (x + 16, KEY_CY), 0.2, 1), ink,
                  width=2.4)
        placed = cv.layout.place(batch_words(points, ctx.lang), x=x + 20, cy=KEY_CY,
                                 role="label", size=SMALL_SIZE, anchor="start", floor=None)
        x = placed.box.x1 + 10
    rng = cv.rng("axes")
    cv.stroke(rough.arrow(rng, (X0, Y_BOT), (X1 + 8, Y_BOT), 0.5, 0, 6)
              + rough.arrow(rng, (X0, Y_BOT), (X0, Y_TOP - 12), 0.5, 0, 6), width=1.5)
    marks = [top * k / 2 for k in range(3)]
    for k, mark in enumerate(marks[1:], 1):
        cv.stroke(rough.line(cv.rng(f"grid-{k}"), (X0, py(mark)), (X1, py(mark)), 0.3, 1),
                  FAINT, width=0.8)
    for mark in marks:
        cv.layout.place(number(mark), x=X0 - 6, cy=py(mark), role="axis", size=SMALL_SIZE,
                        anchor="end", floor=None)
    cv.layout.place_row([(str(p.gpus), px(i)) for i, p in enumerate(own)], cy=TICK_CY,
                        role="axis", size=SMALL_SIZE)
    cv.layout.place(words["y"], x=SCENE_X0, cy=Y_TITLE_CY, role="axis", size=SMALL_SIZE,
                    anchor="start", floor=None)
    cv.layout.place(words["x"], x=X1 + 8, cy=TITLE_CY, role="axis", size=SMALL_SIZE,
                    anchor="end", floor=None)
    for points, ink, width in ((other, FAINT, 1.6), (own, INK, 2.3)):
        pts = [(px(i), py(_mfu(p))) for i, p in enumerate(points)]
        if len(pts) > 1:
            cv.stroke(rough.polyline(cv.rng(f"curve-{ink}"), pts, 0.4, False, 1), ink, width=width)
        for x_, y_ in pts:
            cv.dot(x_, y_, DOT_R if ink == INK else DOT_R - 0.8, ink)
    for i, p in enumerate(own):
        x_, y_ = px(i), py(_mfu(p))
        cv.layout.try_place(number(_mfu(p)), x=x_, cy=y_ - 12, role="label", size=SMALL_SIZE,
                            floor=None, alts=[(x_, y_ + 13), (x_ + 16, y_ - 12)])
    return SceneResult(_desc(ctx.lang, view), True)


def _desc(lang: str, view: TrainingView) -> str:
    pairs = [(p.gpus, number(_mfu(p))) for p in view.points]
    setting = batch_words(view.points, lang)
    if lang == "zh":
        curve = "，".join(f"{g} 张 {m}%" for g, m in pairs)
        return f"MFU 随 GPU 数的变化（{setting}）：{curve}。"
    curve = ", ".join(f"{m}% on {g}" for g, m in pairs)
    return f"MFU as the cluster grows ({setting}): {curve}."
