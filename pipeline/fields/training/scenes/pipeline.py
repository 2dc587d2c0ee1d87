"""pipeline: the pipeline schedule as one lane per GPU on a time axis. Each micro-batch's
forward (F) and backward (B) is a block where the timeline ran it, numbered with its
micro-batch (1, 2, ... as a reader counts); idle time is grey; the micro-batches wait as beans
above the lanes. Right of each lane: the most micro-batches whose activations that GPU holds at
once (not for interleaving, whose GPUs hold parts of micro-batches: the memory scene shows the
bytes). Under the lanes: the span and the bubble's share of it.

Both panels of a card share one time scale (`pair_span`, the longer of the two variants' spans),
so the faster schedule visibly ends earlier. Every position and number is the run's timeline.
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.layout import GAP
from pipeline.draw.palette import FAINT
from pipeline.errors import InputError
from pipeline.fields.training.scenes.common import (
    SCENE_X0,
    SCENE_X1,
    SCHEDULES,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    action_block,
    card_extent,
    clock,
    draw_key,
    gpu_name,
    number,
    unit_word,
)
from pipeline.fields.training.view import Action, TrainingView

MAX_LANES = 4
MAX_BEANS = 8
LANE_X0 = 62.0
HELD_W = 56.0  # room right of the lanes for "holds 8", "holds 4 seq"
LANE_X1 = SCENE_X1 - HELD_W
BEAN_CY = 60.0
BEAN_PITCH = 29.0
LANES_Y0, LANES_Y1 = 84.0, 174.0
LANE_GAP = 4.0
AXIS_CY = 187.0
TEXT = {
    "zh": {"mbs": "{m} 个微批次", "mbs_b": "1 批 {b} 条序列", "held": "存 {n} 份", "held_seq": "存 {n} 条",
           "bubble": "空闲占 {pct}%", "span": "共 {t} {u}"},
    "en": {"mbs": "{m} micro-batches", "mbs_b": "1 batch of {b} sequences",
           "held": "holds {n}", "held_seq": "holds {n} seq", "bubble": "idle {pct}%", "span": "{t} {u} in all"},
}


def check_pipeline(view: TrainingView) -> None:
    if view.pp < 2 or not view.unit_cost:
        raise InputError(
            f"pipeline scene: scenario {view.scenario!r} is not a pipeline comic (pp {view.pp}, "
            f"{view.cost_kind} cost); draw it from pipeline_bubble, one_f_one_b or interleaving"
        )
    if view.pp > MAX_LANES:
        raise InputError(f"pipeline scene: {view.pp} GPUs, at most {MAX_LANES} lanes fit")


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    view: TrainingView = ctx.run
    check_pipeline(view)
    words = TEXT[ctx.lang]
    draw_key(cv, ctx.lang, ["F", "B", "idle"] + (["chunk2"] if view.virtual_stages > 1 else []))
    _beans(cv, ctx, view)
    scale = (LANE_X1 - LANE_X0) / max(card_extent(ctx, view.pair_span, lambda v: v.span), 1e-9)
    pitch = (LANES_Y1 - LANES_Y0) / view.pp
    lane_h = pitch - LANE_GAP
    for rank, actions in enumerate(view.timeline):
        y = LANES_Y0 + rank * pitch
        cy = y + lane_h / 2
        cv.layout.place(gpu_name(ctx.lang, rank), x=SCENE_X0, cy=cy, role="label",
                        size=SMALL_SIZE, anchor="start", floor=None)
        with cv.batch():
            action_block(cv, f"idle-{rank}", "idle", LANE_X0, y, view.span * scale, lane_h)
            for i, a in enumerate(actions):
                x, w = LANE_X0 + a.start * scale, (a.end - a.start) * scale
                action_block(cv, f"act-{rank}-{i}", a.kind, x + 0.6, y, max(w - 1.2, 0.8), lane_h,
                             later_chunk=a.stage >= view.pp)
        labels = lane_labels(actions, scale)
        if labels:
            cv.layout.place_row(labels, cy=cy, role="label", size=SMALL_SIZE)
        if rank < len(view.memory):
            # interleaved, a GPU holds (stage, micro-batch) pairs of 1/v of its layers each: in
            # whole micro-batches' worth they compare with the plain schedule's count (a
            # reader could not see interleaving's cost, more activations held early)
            # one batch of 4 sequences "held 1" read as a quarter of 4 micro-batches of one
            # (reader hf6): micro-batches of several sequences are counted in sequences
            key = "held_seq" if view.micro_batch > 1 else "held"
            held = number(view.memory[rank].held * view.micro_batch / view.virtual_stages)
            cv.layout.place(words[key].format(n=held), x=SCENE_X1, cy=cy,
                            role="label", size=SMALL_SIZE, anchor="end", floor=None)
    _axis(cv, ctx, view, scale)
    return SceneResult(_desc(ctx.lang, view), True)


def lane_labels(actions: tuple[Action, ...], scale: float) -> list[tuple[str, float]]:
    """Each block's micro-batch number at its centre, all of a kind or none in a lane: when
    one forward of a lane is too thin for its number, or would touch its neighbour's, the
    lane's forwards go unnumbered (a lane reading "1 3 4" looked like a missing micro-batch,
    reader tr-r5); the backwards, twice as wide, are then checked the same way."""
    spots = {kind: [(str(a.microbatch + 1), LANE_X0 + (a.start + a.end) / 2 * scale,
                     (a.end - a.start) * scale) for a in actions if a.kind == kind]
             for kind in ("F", "B")}
    kept: list[tuple[str, float, float]] = []
    for kind in ("B", "F"):
        mine = spots[kind]
        trial = sorted(kept + mine, key=lambda s: s[1])
        widths = [fonts.measure(t, fonts.HAND_EN, SMALL_SIZE) for t, _, _ in trial]
        fits = all(fonts.measure(t, fonts.HAND_EN, SMALL_SIZE) <= w - 2 for t, _, w in mine)
        apart = all(b[1] - a[1] >= (wa + wb) / 2 + GAP + 0.5
                    for a, b, wa, wb in zip(trial, trial[1:], widths, widths[1:], strict=False))
        if fits and apart:
            kept = trial
    return [(t, x) for t, x, _ in sorted(kept, key=lambda s: s[1])]


def _beans(cv: Canvas, ctx: SceneContext, view: TrainingView) -> None:
    """The micro-batches waiting to enter the pipeline, as numbered beans (new: orange)."""
    shown = min(view.microbatches, MAX_BEANS)
    for k in range(shown):
        cast.bean(cv, str(k + 1), SCENE_X0 + 14 + k * BEAN_PITCH, BEAN_CY, "new",
                  eid=f"mb-{k}")
    words = TEXT[ctx.lang]
    text = (words["mbs"].format(m=view.microbatches) if view.micro_batch == 1
            else words["mbs_b"].format(b=view.micro_batch))
    x = SCENE_X0 + 14 + shown * BEAN_PITCH - 4
    cv.layout.place(text, x=x, cy=BEAN_CY, role="label", size=SMALL_SIZE, anchor="start",
                    floor=None)


def _axis(cv: Canvas, ctx: SceneContext, view: TrainingView, scale: float) -> None:
    words = TEXT[ctx.lang]
    end = LANE_X0 + view.span * scale
    rng = cv.rng("axis")
    top = LANES_Y0 - 2
    cv.stroke(rough.line(rng, (LANE_X0, top), (LANE_X0, LANES_Y1 + 2), 0.3, 1)
              + rough.line(rng, (end, top), (end, LANES_Y1 + 2), 0.3, 1), FAINT, width=1.2)
    span = words["span"].format(t=clock(view, view.span), u=unit_word(view, ctx.lang))
    placed = cv.layout.place(span, x=end, cy=AXIS_CY, role="axis", size=SMALL_SIZE,
                             anchor="end" if end > SCENE_X0 + 150 else "start", floor=None)
    bubble = words["bubble"].format(pct=number(100.0 * view.bubble_fraction))
    if placed.box.x0 > LANE_X0 + 90:
        cv.layout.place(bubble, x=LANE_X0, cy=AXIS_CY, role="label", size=SMALL_SIZE,
                        anchor="start", floor=None)
    else:
        cv.layout.place(bubble, x=SCENE_X1, cy=AXIS_CY, role="label", size=SMALL_SIZE,
                        anchor="end", floor=None)


def _desc(lang: str, view: TrainingView) -> str:
    schedule = SCHEDULES[view.schedule]
    pct, span = number(100.0 * view.bubble_fraction), clock(view, view.span)
    v = view.virtual_stages
    held = ", ".join(number(m.held / v) for m in view.memory)
    if lang == "zh":
        tail = f"各 GPU 最多同时存 {held} 份微批次的激活"
        if v > 1:
            tail = f"每张 GPU 管 {v} 段流水线，{tail}（按整份算）"
        return (f"{view.pp} 张 GPU 的流水线（{schedule}），{view.microbatches} 个微批次：一步共 "
                f"{span} 单位时间，空闲占 {pct}%；{tail}。")
    tail = f"the GPUs hold at most {held} micro-batches' activations at once"
    if v > 1:
        tail = f"each GPU holds {v} stages of the pipeline, and {tail} (in whole micro-batches)"
    return (f"A pipeline of {view.pp} GPUs ({schedule}), {view.microbatches} micro-batches: the "
            f"step spans {span} time units, {pct}% of it idle; {tail}.")
