"""step_bar: one training step of the critical GPU as a bar — compute (green), communication
the GPU waits for (ink: not hidden behind compute) and idle pipeline time (grey) — with, beneath
it, the communication that ran hidden under the compute. The GPU at the left is awake while it
mostly computes and dozes when it mostly waits. Above the bar: the step time, and tokens/s and
MFU (or, under the unit cost, the busy share).

Both panels of a card share one scale (`pair_step`, the longer step of the two variants). The
parts are the run's `step` (compute + exposed communication + bubble = the step time).
Without a pipeline, a step of several micro-batches (gradient accumulation) has its compute cut
into one numbered piece per micro-batch, so the hidden communication visibly sits under the
last one only.
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import INK, colour
from pipeline.fields.training.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    TAG_LEFT,
    SceneContext,
    SceneResult,
    action_block,
    card_extent,
    clock,
    gb,
    number,
    unit_word,
)
from pipeline.fields.training.view import TrainingView

CHIP_X, CHIP_CY = 52.0, 84.0
HEAD_X = 100.0
HEAD_CY, SUB_CY = 66.0, 92.0
BAR_X0, BAR_X1 = SCENE_X0 + 8, SCENE_X1 - 8
BAR_Y, BAR_H = 124.0, 22.0
HIDDEN_Y, HIDDEN_H = 149.0, 6.0
ROW_CY = (170.0, 190.0)
SWATCH = 11.0
COMM_OPACITY = 0.75
TP_CHIPS, TP_CHIP_STEP = 4, 6.0  # a tensor-parallel step draws up to 4 chips, stacked
TP_PIECES = 4  # a one-micro-batch step cut into quarters to draw its per-layer all-reduces
TEXT = {
    "zh": {"step": "一步 {t} {u}", "rate": "每秒 {tps} 个 token，MFU {mfu}%",
           "busy": "忙 {c}，共 {t} {u}", "compute": "计算 {v}", "idle": "空闲 {v}",
           "comm": "等通信 {v}", "hidden": "（另有 {v} 藏在计算下）",
           "layers": "，分在每一层里", "split": "，{tp} 张 GPU 分担每层",
           "unfit": "显存装不下（要 {v} GB）：按装得下计时"},
    "en": {"step": "one step: {t} {u}", "rate": "{tps} tokens/s · MFU {mfu}%",
           "busy": "busy {c} of {t} {u}", "compute": "compute {v}", "idle": "idle {v}",
           "comm": "waiting on comm {v}", "hidden": " (+{v} hidden under compute)",
           "layers": " across layers", "split": ", {tp} GPUs split each layer",
           "unfit": "needs {v} GB, over its HBM: timed as if it fit"},
}


def _swatch(cv: Canvas, kind: str, x: float, cy: float) -> None:
    if kind == "comm":
        cv.fill(poly_d(rough.rect_poly(x, cy - SWATCH / 2, SWATCH, SWATCH)), INK, COMM_OPACITY)
    else:
        action_block(cv, f"key-{kind}", "F" if kind == "compute" else "idle", x,
                     cy - SWATCH / 2, SWATCH, SWATCH)
        if kind == "idle":
            cv.stroke(rough.rect(cv.rng("key-idle"), x, cy - SWATCH / 2, SWATCH, SWATCH, 0.3, 1),
                      colour("idle"), width=1.0)


def _row(cv: Canvas, items: list[tuple[str, str]], cy: float) -> None:
    x = SCENE_X0
    for kind, text in items:
        _swatch(cv, kind, x, cy)
        placed = cv.layout.place(text, x=x + SWATCH + 4, cy=cy, role="label", size=SMALL_SIZE,
                                 anchor="start", floor=None, max_width=SCENE_X1 - x - SWATCH - 4)
        x = placed.box.x1 + 12


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    view: TrainingView = ctx.run
    step, words = view.step, TEXT[ctx.lang]
    unit = unit_word(view, ctx.lang)
    busy = step.compute >= 0.5 * step.step_time
    if view.tp > 1:  # the layer's other slices: the chips that share it, one behind another
        for k in range(min(view.tp, TP_CHIPS) - 1, 0, -1):
            cast.gpu(cv, CHIP_X + k * TP_CHIP_STEP, CHIP_CY - k * TP_CHIP_STEP, busy=busy,
                     eid=f"gpu-{k}", label="")
    cast.gpu(cv, CHIP_X, CHIP_CY, busy=busy, eid="gpu")
    head = words["step"].format(t=clock(view, step.step_time), u=unit)
    if view.tp > 1:
        head += words["split"].format(tp=view.tp)
    cv.layout.place(head, x=HEAD_X, cy=HEAD_CY, role="label", size=SMALL_SIZE + 2.5,
                    anchor="start", floor=None, max_width=SCENE_X1 - HEAD_X)
    if view.unit_cost:
        sub = words["busy"].format(c=clock(view, step.compute), t=clock(view, step.step_time),
                                   u=unit)
    else:
        mfu = number(100.0 * step.mfu) if step.mfu is not None else "-"
        sub = words["rate"].format(tps=round(step.tokens_per_s), mfu=mfu)
    cv.layout.place(sub, x=HEAD_X, cy=SUB_CY, role="label", size=SMALL_SIZE, anchor="start",
                    floor=None, max_width=SCENE_X1 - HEAD_X)
    if view.memory and not all(m.fits for m in view.memory):
        # a step the GPU cannot hold is a what-if: said where the time is (played model hf8
        # drew a lone GPU's throughput for a run of 191 GB)
        cv.layout.place(words["unfit"].format(v=gb(view.peak.total)), x=SCENE_X0, cy=KEY_CY,
                        role="label", size=SMALL_SIZE, anchor="start", floor=None,
                        max_width=TAG_LEFT - SCENE_X0, fill=colour("freed"))

    scale = (BAR_X1 - BAR_X0) / max(card_extent(ctx, view.pair_step, lambda v: v.step.step_time),
                                    1e-12)
    c, e, idle = step.compute, step.exposed_comm, step.bubble
    rng = cv.rng("bar")
    tp_wait = step.exposed.get("tp", 0.0) if view.pp == 1 else 0.0
    if tp_wait > 1e-12:
        _layer_waits(cv, view, c, tp_wait, scale)
    else:
        action_block(cv, "compute", "F", BAR_X0, BAR_Y, c * scale, BAR_H)
        _microbatches(cv, view, BAR_X0, c * scale)
    if e - tp_wait > 1e-12:
        cv.fill(poly_d(rough.rect_poly(BAR_X0 + (c + tp_wait) * scale, BAR_Y,
                                       (e - tp_wait) * scale, BAR_H)), INK, COMM_OPACITY)
    if idle > 0:
        action_block(cv, "idle", "idle", BAR_X0 + (c + e) * scale, BAR_Y, idle * scale, BAR_H)
    cv.stroke(rough.rect(rng, BAR_X0, BAR_Y, step.step_time * scale, BAR_H, 0.5, 1), width=1.7)
    hidden = max(0.0, step.comm_total - e)
    if hidden > 1e-12:
        x0 = BAR_X0 + max(0.0, c + e - step.comm_total) * scale
        poly = rough.rect_poly(x0, HIDDEN_Y, hidden * scale, HIDDEN_H)
        cv.stroke(rough.hachure(cv.rng("hidden"), poly, 2.5), INK, width=0.9)
        cv.stroke(rough.jitter_poly(cv.rng("hidden-box"), poly, 0.2), width=1.0)

    first = [("compute", words["compute"].format(v=f"{clock(view, c)} {unit}"))]
    if idle > 1e-12 or view.unit_cost:
        first.append(("idle", words["idle"].format(v=f"{clock(view, idle)} {unit}")))
    _row(cv, first, ROW_CY[0])
    if step.comm_total > 0:
        text = words["comm"].format(v=f"{clock(view, e)} {unit}")
        if tp_wait > 1e-12 and e - tp_wait <= 1e-12:
            text += words["layers"]
        if hidden > 1e-12:
            text += words["hidden"].format(v=f"{clock(view, hidden)} {unit}")
        _row(cv, [("comm", text)], ROW_CY[1])
    return SceneResult(_desc(ctx.lang, view, hidden), True)


def _layer_waits(cv: Canvas, view: TrainingView, compute: float, wait: float,
                 scale: float) -> None:
    """Tensor parallelism's all-reduces sit inside every layer, on the critical path: its wait
    is drawn between the compute, after each piece of it (a micro-batch's, numbered, or
    quarters of one), never as one block at the step's end like a gradient all-reduce
    (reader tr10: the bar put it all at the end)."""
    m = view.microbatches if view.microbatches >= 2 else TP_PIECES
    piece, gap = compute / m * scale, wait / m * scale
    labels = []
    for k in range(m):
        x = BAR_X0 + k * (piece + gap)
        action_block(cv, f"compute-{k}", "F", x, BAR_Y, piece, BAR_H)
        cv.fill(poly_d(rough.rect_poly(x + piece, BAR_Y, gap, BAR_H)), INK, COMM_OPACITY)
        labels.append((str(k + 1), x + piece / 2))
    if view.microbatches >= 2:
        _number(cv, labels, piece)


def _microbatches(cv: Canvas, view: TrainingView, x0: float, width: float) -> None:
    """The compute cut into the step's micro-batches, each numbered where its digits fit."""
    m = view.microbatches
    if view.pp > 1 or m < 2 or width <= 0:
        return
    piece = width / m
    rng = cv.rng("micro")
    cuts = "".join(rough.line(rng, (x0 + piece * k, BAR_Y + 2), (x0 + piece * k, BAR_Y + BAR_H - 2),
                              0.2, 1) for k in range(1, m))
    cv.stroke(cuts, INK, width=1.1)
    _number(cv, [(str(k + 1), x0 + piece * (k + 0.5)) for k in range(m)], piece)


def _number(cv: Canvas, labels: list[tuple[str, float]], piece: float) -> None:
    """Each micro-batch's number at its piece's centre, when every number fits its piece."""
    if all(fonts.measure(t, fonts.HAND_EN, SMALL_SIZE) <= piece - 4 for t, _x in labels):
        cv.layout.place_row(labels, cy=BAR_Y + BAR_H / 2, role="label", size=SMALL_SIZE)


def _desc(lang: str, view: TrainingView, hidden: float) -> str:
    s, u = view.step, unit_word(view, lang)
    t, c, e, i = (clock(view, v) for v in (s.step_time, s.compute, s.exposed_comm, s.bubble))
    h = clock(view, hidden)
    rate = ""
    if not view.unit_cost and s.mfu is not None:
        rate = (f"；每秒 {round(s.tokens_per_s)} 个 token，MFU {number(100 * s.mfu)}%" if lang == "zh"
                else f"; {round(s.tokens_per_s)} tokens/s, MFU {number(100 * s.mfu)}%")
    if lang == "zh":
        return (f"一步 {t} {u}：计算 {c}，等通信 {e}（另有 {h} 藏在计算下），流水线空闲 {i}"
                f"{rate}。")
    return (f"One step takes {t} {u}: compute {c}, waiting on communication {e} ({h} more "
            f"hidden under compute), pipeline idle {i}{rate}.")
