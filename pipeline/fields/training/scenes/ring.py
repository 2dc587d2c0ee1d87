"""ring: the data-parallel GPUs of one group in a ring (top row left to right, bottom row back),
each passing a chunk — 1/n of the gradients (a blue square on its arrow) — to its neighbour.
An all-reduce takes 2(n-1) such steps (reduce-scatter, then all-gather), the halves n-1. An
arrow that crosses from one node to another is drawn thick: it runs on the network, the slowest
link, which sets the whole ring's time (nccl-tests' bus bandwidth, SIM-TRAINING.md).

The collective is the run's largest data-parallel one (dp, else fsdp): its op, group, bytes,
link and time as `sim train` computed them; GPU g of the group sits in node g·tp // per-node.
"""

from __future__ import annotations

import math

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import TINT_OPACITY, colour
from pipeline.errors import InputError
from pipeline.fields.training.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SMALL_SIZE,
    TAG_LEFT,
    SceneContext,
    SceneResult,
    number,
)
from pipeline.fields.training.values import ring_steps
from pipeline.fields.training.view import Collective, TrainingView

MAX_GPUS = 8
PITCH = 88.0
CENTRE_X = 200.0
ROW_CY = (76.0, 160.0)
HALF = 34.0  # a chip's half width with its pins
BAND_CY = 118.0
CHUNK = 6.0
OPS = {
    "zh": {"all_reduce": "环形全归约", "all_gather": "环形全收集", "reduce_scatter": "环形归约散播"},
    "en": {"all_reduce": "ring all-reduce", "all_gather": "ring all-gather",
           "reduce_scatter": "ring reduce-scatter"},
}
TEXT = {
    "zh": {"head": "{op} {size}：{steps} 轮，{ms} 毫秒", "each": "每轮把 1/{n} 传给下一张",
           "net": "；粗箭头跨节点走网络", "nvlink": "，全走 NVLink"},
    "en": {"head": "{op}, {size}: {steps} rounds, {ms} ms", "each": "each round: 1/{n} on to the next",
           "net": "; thick = network", "nvlink": ", all on NVLink"},
}


def ring_collective(view: TrainingView) -> Collective:
    ring = view.collective("dp") or view.collective("fsdp")
    if ring is None or ring.group < 2:
        raise InputError(f"ring scene: scenario {view.scenario!r} has no data-parallel "
                         "collective; draw it from grad_sync or zero_sharding")
    if ring.group > MAX_GPUS:
        raise InputError(f"ring scene: a ring of {ring.group} GPUs, at most {MAX_GPUS} fit")
    return ring


def size_text(nbytes: float) -> str:
    return f"{number(nbytes / 1e9)} GB" if nbytes >= 1e8 else f"{number(nbytes / 1e6)} MB"


def positions(n: int) -> list[tuple[float, float]]:
    """Chip centres round the ring: the first half left to right on top, the rest back."""
    per_row = math.ceil(n / 2)
    top = [(CENTRE_X + (k - (per_row - 1) / 2) * PITCH, ROW_CY[0]) for k in range(per_row)]
    rest = n - per_row
    bottom = [(CENTRE_X + (k - (per_row - 1) / 2) * PITCH, ROW_CY[1]) for k in range(rest)]
    return top + bottom[::-1]


def _hop(cv: Canvas, eid: str, a: tuple[float, float], b: tuple[float, float],
         thick: bool) -> None:
    """One arrow from chip `a` to chip `b` with the chunk it carries."""
    rng = cv.rng(eid)
    width = 2.6 if thick else 1.4
    if abs(a[1] - b[1]) < 1:  # along a row
        side = 1.0 if b[0] > a[0] else -1.0
        y = a[1] - 14
        tail, tip = (a[0] + side * (HALF + 1), y), (b[0] - side * (HALF + 1), y)
        cv.stroke(rough.arrow(rng, tail, tip, 0.3, 0, 5), width=width)
        mx = (tail[0] + tip[0]) / 2 - side * 3
        chunk = (mx - CHUNK / 2, y + 4, CHUNK, CHUNK)
    else:  # round the end of the ring, outside the chips: down on the right, up on the left
        down = b[1] > a[1]
        side = 1.0 if down else -1.0
        x = a[0] + side * (HALF + 2)
        y0, y1 = (a[1] + 14, b[1] - 14) if down else (a[1] - 14, b[1] + 14)
        mid = (x + side * 12, (y0 + y1) / 2)
        cv.stroke(rough.curve(rng, [(x, y0), mid, (x, y1)], 0.3, 2)
                  + rough.arrow_head(rng, (x, y1), mid, 6, 0.3), width=width)
        chunk = (mid[0] - CHUNK / 2 - side * 1, mid[1] - 16, CHUNK, CHUNK)
    poly = rough.rect_poly(*chunk)
    cv.fill(poly_d(poly), colour("stored"), TINT_OPACITY + 0.3)
    cv.stroke(rough.jitter_poly(rng, poly, 0.2), colour("stored"), width=1.1)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    view: TrainingView = ctx.run
    ring = ring_collective(view)
    n = ring.group
    words, ops = TEXT[ctx.lang], OPS[ctx.lang]
    steps = ring_steps(ring.op, n)
    head = words["head"].format(op=ops[ring.op], size=size_text(ring.bytes), steps=steps,
                                ms=number(1000.0 * ring.time))
    cv.layout.place(head, x=SCENE_X0, cy=KEY_CY, role="label", size=SMALL_SIZE, anchor="start",
                    floor=None, max_width=TAG_LEFT - SCENE_X0)
    nodes = [g * view.tp // view.gpus_per_node for g in range(n)]
    spots = positions(n)
    crossing = False
    for g in range(n):
        h = (g + 1) % n
        thick = nodes[g] != nodes[h]
        crossing |= thick
        _hop(cv, f"hop-{g}", spots[g], spots[h], thick)
    for g, (x, y) in enumerate(spots):
        cast.gpu(cv, x, y, busy=True, eid=f"gpu-{g}", label=f"GPU {g}")
    band = words["each"].format(n=n) + (words["net"] if crossing else words["nvlink"])
    cv.layout.place(band, x=CENTRE_X, cy=BAND_CY, role="label", size=SMALL_SIZE, floor=None,
                    max_width=2 * (CENTRE_X - SCENE_X0) - 40)
    return SceneResult(_desc(ctx.lang, view, ring, steps, crossing), True)


def _desc(lang: str, view: TrainingView, ring: Collective, steps: int, crossing: bool) -> str:
    n, size, ms = ring.group, size_text(ring.bytes), number(1000.0 * ring.time)
    link = "network" if ring.link == "network" else "NVLink"
    if lang == "zh":
        where = "跨节点的两段走网络，最慢的链路决定整圈的时间" if crossing else "全在一个节点内走 NVLink"
        return (f"{n} 张 GPU 围成一圈做{OPS['zh'][ring.op]}：{size} 的梯度切成 {n} 块，"
                f"{steps} 轮里每轮每张把一块传给下一张；{where}，一次 {ms} 毫秒（{link}）。")
    where = ("the two hops between nodes run on the network, the slowest link, which sets the "
             "ring's time" if crossing else "all inside one node, on NVLink")
    return (f"{n} GPUs in a ring run a {OPS['en'][ring.op]}: {size} of gradients cut into {n} "
            f"pieces, and in each of {steps} rounds every GPU passes one piece to the next; "
            f"{where}: {ms} ms a call ({link}).")
