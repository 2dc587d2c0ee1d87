"""`draw_main_thread` (P4): the one loop, pipeline or tension that runs through every concept.

loop: the plan's stages as boxes around an oval with arrows, the cast at work in the middle
(D waiting, the scheduler clerk, the batch A B C D, the GPU: the serving scheduler, drawn only on
a page with a serving card); pipeline: stages left to right;
tension: the stages split onto the two pans of a balance. `narrow=True` is the phone layout (P4 on
a 390 px screen): the stages in one column, the return arrow up the left side, the cast beside
the stage it acts in, all at about 1:1 so the words stay readable.
"""

from __future__ import annotations

import math

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.plan.catalogue import DEFAULT_FIELD
from pipeline.plan.model import Plan

WIDTH, HEIGHT = 800.0, 330.0
PIPELINE_ONLY_H = 200.0  # a pipeline with no cast at work below it: its boxes and some air
INSET = 8.0
BOX_W, BOX_H = 128.0, 46.0
RING_RX, RING_RY = 318.0, 122.0
LABEL_SIZE = 16.0
# narrow (phone) layout: a column of stages, about one viewBox unit per CSS px at 390 px
NARROW_W = 360.0
N_BOX_W, N_BOX_H = 150.0, 44.0
N_BOX_CX = 134.0  # the column sits left of centre: the cast stands on the right
N_PITCH = 74.0  # from one stage's centre to the next
N_TOP = 36.0
N_RETURN_X = 26.0  # the loop's way back runs up this line on the left
N_CAST_X = 244.0  # the first cast figure beside the column
CAST_ROWS = 4  # waiting D, clerk, batch, GPU: one row each


def _box(cv: Canvas, i: int, cx: float, cy: float, label: str) -> None:
    cv.stroke(rough.rounded_rect(cv.rng(f"stage-{i}"), cx - BOX_W / 2, cy - BOX_H / 2, BOX_W, BOX_H,
                                 10, 0.9), width=1.8)
    cv.layout.place(f"{i + 1}. {label}", x=cx, cy=cy, role="label", size=LABEL_SIZE,
                    max_width=BOX_W - 12, max_lines=2)


BATCH = ("A", "B", "C")  # in the batch; D waits in the queue (each bean drawn once)


def _edge_point(cx: float, cy: float, tx: float, ty: float) -> tuple[float, float]:
    """Where the line from a box centre towards (tx, ty) leaves the box (plus a small gap)."""
    dx, dy = tx - cx, ty - cy
    scale = min((BOX_W / 2 + 6) / abs(dx) if dx else math.inf,
                (BOX_H / 2 + 6) / abs(dy) if dy else math.inf)
    return cx + dx * scale, cy + dy * scale


def _cast_at_work(cv: Canvas, cx: float, cy: float) -> None:
    cast.bean(cv, "D", cx - 150, cy + 4, "new", eid="mt-D-wait")
    cast.clerk(cv, cx - 80, cy + 4, eid="mt-clerk")
    # the batch the clerk hands the GPU: the cast already in (D, the newcomer, waits above)
    for k, rid in enumerate(BATCH):
        cast.bean(cv, rid, cx - 5 + k * 30, cy + 6, "running", eid=f"mt-{rid}")
    cv.stroke(rough.arrow(cv.rng("mt-to-gpu"), (cx + 92, cy + 6), (cx + 122, cy + 6), 0.5, 0, 6),
              width=1.5)
    cast.gpu(cv, cx + 160, cy + 4, busy=True, eid="mt-gpu")


def _serving(plan: Plan) -> bool:
    """Whether the cast at work (a scheduler clerk batching requests for a GPU) belongs on this
    page: it is serving's loop, and a page of another field (CPU caches, a household budget)
    would show a GPU its subject does not have. A concept with no field is serving's."""
    return any((c.field or DEFAULT_FIELD) == DEFAULT_FIELD for c in plan.concepts)


def _narrow_cast(cv: Canvas) -> None:
    """The cast beside the column: who waits by the first stage, the clerk by the second, the
    batch by the third, the GPU by the fourth (fewer stages: the cast goes on below them)."""
    at = [N_TOP + 4 + N_PITCH * k for k in range(CAST_ROWS)]
    cast.bean(cv, "D", N_CAST_X + 8, at[0], "new", eid="mt-D-wait")
    cast.clerk(cv, N_CAST_X + 12, at[1] + 6, eid="mt-clerk")
    for k, rid in enumerate(BATCH):
        cast.bean(cv, rid, N_CAST_X + 14 + k * 29, at[2], "running", eid=f"mt-{rid}")
    gx = N_CAST_X + 44
    cv.stroke(rough.arrow(cv.rng("mt-to-gpu"), (gx, at[2] + 26), (gx, at[3] - 26), 0.5, 0, 6),
              width=1.5)
    cast.gpu(cv, gx, at[3], busy=True, eid="mt-gpu")


def _draw_narrow(plan: Plan, lang: str) -> Canvas:
    mt = plan.main_thread
    n = len(mt.stages)
    serving = _serving(plan)
    box_cx = N_BOX_CX if serving else NARROW_W / 2  # no cast beside it: the column is centred
    height = N_TOP + N_PITCH * (max(n, CAST_ROWS if serving else 1) - 1) + N_BOX_H / 2 + 20
    cv = new_canvas("main-thread-n", NARROW_W, height, INSET, lang, "main thread (narrow)")
    rows = [N_TOP + 4 + N_PITCH * i for i in range(n)]
    left, gap = box_cx - N_BOX_W / 2, 6.0
    for i, y in enumerate(rows):
        cv.stroke(rough.rounded_rect(cv.rng(f"stage-{i}"), left, y - N_BOX_H / 2, N_BOX_W, N_BOX_H,
                                     10, 0.9), width=1.8)
        cv.layout.place(f"{i + 1}. {mt.stages[i].label}", x=box_cx, cy=y, role="label",
                        size=LABEL_SIZE, max_width=N_BOX_W - 12, max_lines=2)
        if i:
            cv.stroke(rough.arrow(cv.rng(f"flow-{i - 1}"), (box_cx, rows[i - 1] + N_BOX_H / 2 + gap),
                                  (box_cx, y - N_BOX_H / 2 - gap), 0.5, 0, 7), width=1.7)
    if mt.kind == "loop" and n > 1:
        # back from the last stage to the first, up the left side: the loop never ends
        rng = cv.rng("flow-back")
        low, high = rows[-1], rows[0]
        pts = [(left - gap, low), (N_RETURN_X + 6, low - 4), (N_RETURN_X, (low + high) / 2),
               (N_RETURN_X + 6, high + 4), (left - gap, high)]
        cv.stroke(rough.curve(rng, pts, 0.6, 2) + rough.arrow_head(rng, pts[-1], pts[-2], 8, 0.6),
                  width=1.7)
    if serving:
        _narrow_cast(cv)
    return cv


def draw_main_thread(plan: Plan, *, lang: str, narrow: bool = False) -> str:
    """The main-thread diagram; `narrow` draws the phone layout (a column) instead of the wide one."""
    mt = plan.main_thread
    names = " → ".join(s.label for s in mt.stages)
    title = "主线" if lang == "zh" else "Main thread"
    desc = f"{mt.sentence} {names}" + (" → …" if mt.kind == "loop" else "")
    if narrow:
        return _draw_narrow(plan, lang).svg(css_class="main-thread narrow",
                                            element_id="main-thread-svg-n", title=title, desc=desc)
    serving = _serving(plan)
    height = HEIGHT if serving or mt.kind != "pipeline" else PIPELINE_ONLY_H
    cv = new_canvas("main-thread", WIDTH, height, INSET, lang, "main thread")
    cx, cy = WIDTH / 2, HEIGHT / 2
    n = len(mt.stages)
    if mt.kind == "loop":
        centres = [(cx + RING_RX * math.cos(-math.pi / 2 - math.pi / n + 2 * math.pi * (i + 0.5) / n),
                    cy + RING_RY * math.sin(-math.pi / 2 - math.pi / n + 2 * math.pi * (i + 0.5) / n))
                   for i in range(n)]
        pairs = [(i, (i + 1) % n) for i in range(n)]
        if serving:
            _cast_at_work(cv, cx, cy)
    elif mt.kind == "pipeline":
        step = (WIDTH - 2 * INSET - BOX_W) / max(n - 1, 1)
        centres = [(INSET + BOX_W / 2 + i * step, 90.0 + (i % 2) * 30) for i in range(n)]
        pairs = [(i, i + 1) for i in range(n - 1)]
        if serving:
            _cast_at_work(cv, cx, 240)
    else:  # tension: two pans of a balance
        half = (n + 1) // 2
        centres = [(160.0, 70.0 + i * 60) for i in range(half)] + \
                  [(640.0, 70.0 + i * 60) for i in range(n - half)]
        pairs = []
        rng = cv.rng("balance")
        cv.stroke(rough.line(rng, (250, 180), (550, 160), 1.0) + rough.line(rng, (400, 170), (380, 290), 0.8)
                  + rough.line(rng, (400, 170), (420, 290), 0.8) + rough.line(rng, (360, 290), (440, 290), 0.8),
                  width=2.0)
    for i, (bx, by) in enumerate(centres):
        _box(cv, i, bx, by, mt.stages[i].label)
    for a, b in pairs:
        (ax, ay), (bx, by) = centres[a], centres[b]
        tail = _edge_point(ax, ay, bx, by)
        tip = _edge_point(bx, by, ax, ay)
        cv.stroke(rough.arrow(cv.rng(f"flow-{a}"), tail, tip, 0.6, 10 if mt.kind == "loop" else 0, 8),
                  width=1.7)
    return cv.svg(css_class="main-thread", element_id="main-thread-svg", title=title, desc=desc)
