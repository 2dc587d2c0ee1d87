"""timeline: steps left to right, one lane per request; cells show prefill, decode, waiting, idle.

First-token marks (a spark) and finish flags come from the trace's token times and `finished`.
Under static batching a request that has finished keeps its seat in the batch until the batch's
last request finishes: its lane shows that seat idle (the waste continuous batching removes).
Used for static vs continuous batching, chunked prefill, preemption, admission.
"""

from __future__ import annotations

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.key import draw_key
from pipeline.draw.palette import TINT_OPACITY, colour
from pipeline.fields.serving.scenes.common import (
    SCENE_TOP,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    cast_state,
    partner_trace,
    phase,
    request_ids,
    steps,
)

LANE_X0 = 56.0
CELL_H = 20.0
LANE_PITCH = 35.0
BEAN_X = 32.0
AXIS_GAP = 10.0


def seat_idle(trace: TraceView, rid: str, step: StepView) -> bool:
    """Static batching: `rid` has finished, but a request of its batch (let in at the same
    step) still runs, so its seat sits idle in this step."""
    req = trace.requests[rid]
    if trace.engine is None or trace.engine.policy != "static" or req.finish is None:
        return False
    if step.start < req.finish - 1e-9:
        return False
    first = trace.first_scheduled(rid)
    return any(o != rid and trace.first_scheduled(o) is first for o in step.scheduled)


def cell_kind(ctx: SceneContext, rid: str, step: StepView) -> str | None:
    assert ctx.trace is not None
    req = ctx.trace.requests[rid]
    if seat_idle(ctx.trace, rid, step):
        return "idle"
    if rid in step.preempted:
        return "freed"
    if rid in step.scheduled:
        return "new" if phase(ctx.trace, rid, step) == "prefill" else "running"
    if rid in step.waiting:
        return "waiting"
    if rid in step.running:
        return "idle"
    if req.arrival <= step.start and (req.finish or 1e18) > step.start:
        return "waiting"
    return None


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    rids = request_ids(trace)
    cols = steps(trace)
    partner = partner_trace(ctx)
    # a run that stalls gets one more column after its last step: every unfinished lane idle,
    # its axis mark saying that nothing moves from then on (the story's "STALLS after step N")
    stall = trace.stalled and len(cols) == len(trace.steps)
    # the card's other run of this scenario sets the same step width, so the shorter run ends
    # visibly earlier on one axis
    span = max(len(cols) + stall, len(steps(partner)) if partner is not None else 0)
    width = (SCENE_X1 - LANE_X0) / max(span, 1)
    # hatched "idle" cells (running, but given no token this step) get their key word too
    stuck = stall or any(cell_kind(ctx, rid, step) == "idle" for rid in rids for step in cols)
    evicted = any(rid in step.preempted for rid in rids for step in cols)
    draw_key(cv, ctx, ["new", "running", "waiting", *(["idle"] if stuck else []),
                       *(["preempted"] if evicted else [])])
    axis_y = SCENE_TOP + LANE_PITCH * len(rids) + AXIS_GAP
    with cv.batch():  # cells of one kind become one path; marks stay on top of the tints
        for i, rid in enumerate(rids):
            cy = SCENE_TOP + LANE_PITCH * (i + 0.5)
            req = trace.requests[rid]
            state = cast_state(req.arrival)
            cast.bean(cv, rid, BEAN_X, cy - 2, state, eid=f"lane-{rid}", focus=rid in ctx.focus)
            counts: list[tuple[str, float]] = []
            for j, step in enumerate(cols):
                x = LANE_X0 + j * width
                kind = cell_kind(ctx, rid, step)
                _cell(cv, rid, step, kind, x + 1.5, cy - CELL_H / 2, width - 3)
                n = step.scheduled.get(rid, 0)
                if kind in ("new", "running") and n > 1:
                    counts.append((str(n), x + width / 2))
                if (
                    req.token_times
                    and abs(req.token_times[0] - step.end) < 1e-9
                    and kind in ("new", "running")
                ):
                    _spark(cv, f"spark-{rid}", x + width - 2, cy - CELL_H / 2 - 2)
                if rid in step.finished:
                    _flag(cv, f"flag-{rid}", x + width - 1, cy + CELL_H / 2)
            if stall and req.finish is None:
                x = LANE_X0 + len(cols) * width
                _cell(cv, rid, None, "idle", x + 1.5, cy - CELL_H / 2, width - 3)
            if counts:  # how many tokens each step computed for this request
                cv.layout.place_row(counts, cy=cy, role="label", size=SMALL_SIZE)
    rng = cv.rng("axis")
    cv.stroke(rough.arrow(rng, (LANE_X0, axis_y - 5), (SCENE_X1, axis_y - 5), 0.5, 0, 6), width=1.2)
    marks = [(str(step.index), LANE_X0 + (j + 0.5) * width) for j, step in enumerate(cols)]
    if stall:
        marks.append((ctx.word("all_stop"), LANE_X0 + (len(cols) + 0.5) * width))
    cv.layout.place_row(
        marks,
        cy=axis_y + 4,
        role="axis",
        size=SMALL_SIZE,
    )
    cv.layout.place(
        ctx.word("step"),
        x=LANE_X0 - 6,
        cy=axis_y + 4,
        role="axis",
        size=SMALL_SIZE,
        anchor="end",
        floor=None,
    )
    total = len(trace.steps)
    idle_seats = sum(1 for rid in rids for step in cols if seat_idle(trace, rid, step))
    waits = {rid: sum(1 for s in trace.steps if rid in s.waiting) for rid in rids}
    worst = max(rids, key=lambda r: (waits[r], r))
    if ctx.lang == "zh":
        desc = f"时间线：{len(rids)} 个请求共 {total} 步；{worst} 排队等了 {waits[worst]} 步。"
        desc += f"第 {total} 步之后全停。" if stall else ""
        desc += f"写完的请求占着位置空等，共 {idle_seats} 格。" if idle_seats else ""
    else:
        desc = (
            f"Timeline: {len(rids)} requests over {total} steps; {worst} waited "
            f"{waits[worst]} steps in the queue."
        )
        desc += f" After step {total} nothing moves." if stall else ""
        desc += (f" Finished requests keep their seats idle: {idle_seats} cells."
                 if idle_seats else "")
    return SceneResult(desc, True)


def _cell(
    cv: Canvas,
    rid: str,
    step: StepView | None,
    kind: str | None,
    x: float,
    y: float,
    w: float,
) -> None:
    if kind is None:
        return
    rng = cv.rng(f"cell-{rid}-{step.index if step is not None else 'stall'}")
    poly = rough.rect_poly(x, y, w, CELL_H)
    if kind in ("new", "running"):
        cv.shape(
            rough.jitter_poly(rng, poly),
            fill=colour(kind),
            opacity=TINT_OPACITY + 0.1,
            colour=colour(kind),
            width=1.3,
        )
    elif kind == "waiting":
        cv.stroke(
            rough.jitter_poly(rng, rough.rect_poly(x, y + 3, w, CELL_H - 6)),
            colour("idle"),
            width=1.1,
        )
    elif kind == "idle":
        cv.stroke(
            rough.hachure(rng, poly, 4.0) + rough.jitter_poly(rng, poly), colour("idle"), width=1.0
        )
    elif kind == "freed":
        cv.stroke(rough.jitter_poly(rng, poly), colour("freed"), width=1.4, dashed=True)
        cv.stroke(
            rough.line(rng, (x + 3, y + 3), (x + w - 3, y + CELL_H - 3), 0.3, 1)
            + rough.line(rng, (x + w - 3, y + 3), (x + 3, y + CELL_H - 3), 0.3, 1),
            colour("freed"),
            width=1.2,
            dashed=True,
        )


def _spark(cv: Canvas, eid: str, x: float, y: float) -> None:
    """The first-token mark: a little ink star."""
    rng = cv.rng(eid)
    r = 4.0
    d = rough.line(rng, (x - r, y), (x + r, y), 0.2, 1) + rough.line(
        rng, (x, y - r), (x, y + r), 0.2, 1
    )
    d += rough.line(rng, (x - 2.5, y - 2.5), (x + 2.5, y + 2.5), 0.2, 1)
    d += rough.line(rng, (x + 2.5, y - 2.5), (x - 2.5, y + 2.5), 0.2, 1)
    cv.stroke(d, width=1.3)


def _flag(cv: Canvas, eid: str, x: float, y: float) -> None:
    """The finish flag: a pole and a small pennant, in ink."""
    rng = cv.rng(eid)
    cv.stroke(rough.line(rng, (x, y + 2), (x, y - 16), 0.2, 1), width=1.3)
    cv.stroke(
        rough.polyline(rng, [(x, y - 16), (x + 8, y - 13), (x, y - 10)], 0.2, False, 1), width=1.2
    )
