"""`draw_main_thread` (P4): the one loop, pipeline or tension that runs through every concept.

loop: the plan's stages as boxes around an oval with arrows, the cast at work in the middle
(D waiting, the scheduler clerk, the batch A B C D, the GPU); pipeline: stages left to right;
tension: the stages split onto the two pans of a balance.
"""

from __future__ import annotations

import math

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.plan import Plan

WIDTH, HEIGHT = 800.0, 330.0
INSET = 8.0
BOX_W, BOX_H = 128.0, 46.0
RING_RX, RING_RY = 318.0, 122.0
LABEL_SIZE = 16.0


def _box(cv: Canvas, i: int, cx: float, cy: float, label: str) -> None:
    cv.stroke(rough.rounded_rect(cv.rng(f"stage-{i}"), cx - BOX_W / 2, cy - BOX_H / 2, BOX_W, BOX_H,
                                 10, 0.9), width=1.8)
    cv.layout.place(f"{i + 1}. {label}", x=cx, cy=cy, role="label", size=LABEL_SIZE,
                    max_width=BOX_W - 12, max_lines=2)


def _edge_point(cx: float, cy: float, tx: float, ty: float) -> tuple[float, float]:
    """Where the line from a box centre towards (tx, ty) leaves the box (plus a small gap)."""
    dx, dy = tx - cx, ty - cy
    scale = min((BOX_W / 2 + 6) / abs(dx) if dx else math.inf,
                (BOX_H / 2 + 6) / abs(dy) if dy else math.inf)
    return cx + dx * scale, cy + dy * scale


def _cast_at_work(cv: Canvas, cx: float, cy: float) -> None:
    cast.bean(cv, "D", cx - 150, cy + 4, "new", eid="mt-D-wait")
    cast.clerk(cv, cx - 80, cy + 4, eid="mt-clerk")
    for k, (rid, state) in enumerate((("A", "running"), ("B", "running"), ("C", "running"),
                                      ("D", "new"))):
        cast.bean(cv, rid, cx - 20 + k * 30, cy + 6, state, eid=f"mt-{rid}")
    cv.stroke(rough.arrow(cv.rng("mt-to-gpu"), (cx + 100, cy + 6), (cx + 122, cy + 6), 0.5, 0, 6),
              width=1.5)
    cast.gpu(cv, cx + 160, cy + 4, busy=True, eid="mt-gpu")


def draw_main_thread(plan: Plan, *, lang: str) -> str:
    mt = plan.main_thread
    cv = new_canvas("main-thread", WIDTH, HEIGHT, INSET, lang, "main thread")
    cx, cy = WIDTH / 2, HEIGHT / 2
    n = len(mt.stages)
    if mt.kind == "loop":
        centres = [(cx + RING_RX * math.cos(-math.pi / 2 - math.pi / n + 2 * math.pi * (i + 0.5) / n),
                    cy + RING_RY * math.sin(-math.pi / 2 - math.pi / n + 2 * math.pi * (i + 0.5) / n))
                   for i in range(n)]
        pairs = [(i, (i + 1) % n) for i in range(n)]
        _cast_at_work(cv, cx, cy)
    elif mt.kind == "pipeline":
        step = (WIDTH - 2 * INSET - BOX_W) / max(n - 1, 1)
        centres = [(INSET + BOX_W / 2 + i * step, 90.0 + (i % 2) * 30) for i in range(n)]
        pairs = [(i, i + 1) for i in range(n - 1)]
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
    names = " → ".join(s.label for s in mt.stages)
    title = "主线" if lang == "zh" else "Main thread"
    desc = f"{mt.sentence} {names}" + (" → …" if mt.kind == "loop" else "")
    return cv.svg(css_class="main-thread", element_id="main-thread-svg", title=title, desc=desc)
