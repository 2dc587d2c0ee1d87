"""The training walkthrough's step strips (420 x 64, the page's "s" wobble filters).

`draw_moment_strip`: the whole pipeline step in miniature, one thin lane per GPU, the actions
already run filled (forward light green, backward hatched), the ones running at the moment
outlined bold, the ones still to come only faintly outlined, a cursor at the moment.

`draw_ring_strip`: the ring's GPUs side by side, each with its gradient cut into n chunks; a
chunk's blue deepens with how many GPUs' gradients it has summed (full blue: all n) after the
given ring step, computed by replaying the ring (`chunk_counts`); the chunk each GPU has just
received from its neighbour is outlined in ink.
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas, poly_d
from pipeline.draw.defs import STRIP_SIZE
from pipeline.draw.filters import shared_filter
from pipeline.draw.palette import FAINT, colour
from pipeline.fields.training.scenes.common import action_block
from pipeline.fields.training.values import clock
from pipeline.fields.training.view import Collective, TrainingView
from pipeline.fields.training.walkthrough import Moment

WIDTH, HEIGHT = STRIP_SIZE
INSET = 4.0
LABEL_X = 8.0
LANES_X0, LANES_X1 = 78.0, WIDTH - 10
LANES_Y0, LANES_Y1 = 8.0, 56.0
LABEL_SIZE = 15.0
CELL_GAP = 1.0


def _canvas(sid: str, lang: str, owner: str) -> Canvas:
    return new_canvas(sid, WIDTH, HEIGHT, INSET, lang, owner, shared_filter=shared_filter("s", sid))


def draw_moment_strip(view: TrainingView, moment: Moment, index: int, *, lang: str) -> str:
    sid = f"strip-{view.scenario or 'train'}-{view.variant or 'x'}-{index}"
    cv = _canvas(sid, lang, f"walkthrough step {index}")
    t = clock(view, moment.time)
    cv.layout.place(f"t = {t}", x=LABEL_X, cy=HEIGHT / 2, role="label", size=LABEL_SIZE,
                    anchor="start", floor=None)
    scale = (LANES_X1 - LANES_X0) / max(view.span, 1e-9)
    pitch = (LANES_Y1 - LANES_Y0) / max(view.pp, 1)
    h = pitch - 2
    with cv.batch():
        for rank, lane in enumerate(view.timeline):
            y = LANES_Y0 + rank * pitch
            for i, a in enumerate(lane):
                x, w = LANES_X0 + a.start * scale, max((a.end - a.start) * scale - 1, 0.8)
                if a.start <= moment.time + 1e-9:
                    action_block(cv, f"a-{rank}-{i}", a.kind, x, y, w, h,
                                 later_chunk=a.stage >= view.pp)
                else:
                    cv.stroke(rough.jitter_poly(cv.rng(f"f-{rank}-{i}"),
                                                rough.rect_poly(x, y, w, h), 0.2), FAINT,
                              width=0.8)
    for rank, now in enumerate(moment.doing):
        if now is not None:
            x, w = LANES_X0 + now.start * scale, (now.end - now.start) * scale
            cv.stroke(rough.rect(cv.rng(f"now-{rank}"), x - 1, LANES_Y0 + rank * pitch - 1,
                                 w + 1, h + 2, 0.3, 1), width=2.0)
    cx = LANES_X0 + moment.time * scale
    cv.stroke(rough.line(cv.rng("cursor"), (cx, LANES_Y0 - 4), (cx, LANES_Y1 + 2), 0.3, 1),
              width=1.6)
    later = {"zh": "（第二段）", "en": " (2nd chunk)"}["zh" if lang == "zh" else "en"]
    doing = [f"GPU {r} {a.kind}{a.microbatch + 1}" + (later if a.stage >= view.pp else "")
             for r, a in enumerate(moment.doing) if a]
    idle = [f"GPU {r}" for r, a in enumerate(moment.doing) if a is None]
    if lang == "zh":
        desc = f"时刻 {t}：" + "，".join(doing + ([f"{'、'.join(idle)} 空闲"] if idle else [])) + "。"
        title = f"时刻 {t}"
    else:
        desc = f"At t = {t}: " + ", ".join(doing + ([f"{', '.join(idle)} idle"] if idle else []))
        desc += "."
        title = f"t = {t}"
    return cv.svg(css_class="step-strip", element_id=sid, title=title, desc=desc)


def _passed(n: int, op: str, s: int, g: int) -> int:
    """The chunk GPU g passes on in ring step `s` (from 1): the reduce-scatter's n-1 steps send
    chunk (g - s + 1) mod n, an all-reduce's all-gather then sends the summed (g - s' + 2)."""
    scatter = n - 1 if op in ("all_reduce", "reduce_scatter") else 0
    return (g - s + 1) % n if s <= scatter else (g - (s - scatter) + 2) % n


def chunk_counts(n: int, op: str, step: int) -> list[list[int]]:
    """How many GPUs' gradients each GPU's chunk c holds after ring `step`: in the
    reduce-scatter the next GPU adds the passed chunk to its own, in the all-gather it keeps it
    (the sum of all n)."""
    counts = [[1] * n for _ in range(n)]
    scatter = n - 1 if op in ("all_reduce", "reduce_scatter") else 0
    for s in range(1, step + 1):
        before = [row[:] for row in counts]
        for g in range(n):
            nxt, c = (g + 1) % n, _passed(n, op, s, g)
            counts[nxt][c] = before[nxt][c] + before[g][c] if s <= scatter else n
    return counts


def draw_ring_strip(ring: Collective, step: int, *, lang: str, scenario: str) -> str:
    sid = f"strip-{scenario}-ring-{step}"
    cv = _canvas(sid, lang, f"walkthrough step {step}")
    n = ring.group
    label = f"第 {step} 步" if lang == "zh" else f"step {step}"
    cv.layout.place(label, x=LABEL_X, cy=HEIGHT / 2, role="label", size=LABEL_SIZE,
                    anchor="start", floor=None)
    counts = chunk_counts(n, ring.op, step)
    pitch = (LANES_X1 - LANES_X0) / n
    box_w = pitch - 8
    cell = (box_w - CELL_GAP * (n - 1)) / n
    y, h = 14.0, 24.0
    with cv.batch():
        for g in range(n):
            x0 = LANES_X0 + g * pitch
            for c in range(n):
                poly = rough.rect_poly(x0 + c * (cell + CELL_GAP), y, cell, h)
                cv.fill(poly_d(poly), colour("stored"), 0.12 + 0.78 * (counts[g][c] - 1) / (n - 1))
            cv.stroke(rough.rect(cv.rng(f"gpu-{g}"), x0 - 1.5, y - 1.5, box_w + 3, h + 3, 0.3, 1),
                      colour("stored"), width=1.0)
    for g in range(n):  # the chunk each GPU has just received from its neighbour
        c = _passed(n, ring.op, step, (g - 1) % n)
        x = LANES_X0 + g * pitch + c * (cell + CELL_GAP)
        cv.stroke(rough.rect(cv.rng(f"got-{g}"), x - 0.8, y - 0.8, cell + 1.6, h + 1.6, 0.2, 1),
                  width=1.6)
    cv.layout.place_row([(f"GPU {g}", LANES_X0 + g * pitch + box_w / 2) for g in range(n)],
                        cy=50.0, role="label", size=12.0)
    full = sum(1 for row in counts for v in row if v == n)
    if lang == "zh":
        desc = f"第 {step} 步之后：{n} 张 GPU 共 {n * n} 块中有 {full} 块已是全部 {n} 张的总和。"
        title = label
    else:
        desc = (f"After step {step}: {full} of the {n * n} chunks on the {n} GPUs hold the sum "
                f"of all {n}.")
        title = f"Step {step}"
    return cv.svg(css_class="step-strip", element_id=sid, title=title, desc=desc)
