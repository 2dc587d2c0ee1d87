"""load_curve: latency against load, two slot limits on the same hand-drawn axes.

x: the request rate; y: TTFT, its median (thick line, filled dots) and p99 (thin line, hollow
dots). The panel's own policy is inked, the other pale, so the trouble and fix panels show the
same two curves with the emphasis swapped. A curve that leaves the plot ends in an arrow at its
ceiling. The knee (first rate whose p99 climbs past a multiple of the light-load p99) is
ringed on the inked p99 curve. Every number is the trace's `figures` (sim.presets.field_more's sweep).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from pipeline.artifacts.trace import TraceView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.layout import Anchor, Box, text_box
from pipeline.draw.palette import FAINT, INK, PAPER
from pipeline.errors import InputError
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
)

X0, X1 = 58.0, 368.0
Y_TOP, Y_BOT = 70.0, 160.0
TICK_CY = Y_BOT + 10.0
TITLE_CY = 192.5  # clear of the tick row in the browser's font boxes (1280 px check)
Y_TITLE_CY = 47.0
DOT_R = 3.2
KNEE_R = 9.0
NICE = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
VARIANTS = ("without", "with")
TEXT = {
    "zh": {"slots": "{n} 个槽位", "y": "首字延迟（{u}）", "x": "每{u1}到达的请求数", "knee": "拐点 {v}",
           "step": "步", "ms": "毫秒", "step1": "步", "ms1": "秒"},
    "en": {"slots": "{n} slots", "y": "TTFT ({u})", "x": "requests per {u1}", "knee": "knee {v}",
           "step": "steps", "ms": "ms", "step1": "step", "ms1": "second"},
}


@dataclass(frozen=True)
class Curve:
    variant: str
    slots: float
    knee: float
    p50: tuple[float, ...]
    p99: tuple[float, ...]


def read_curves(trace: TraceView) -> tuple[tuple[float, ...], dict[str, Curve]]:
    """The rates and both policies' curves from the trace's figures."""
    fig = trace.figures
    rates: list[float] = []
    while f"rate_{len(rates)}" in fig:
        rates.append(float(fig[f"rate_{len(rates)}"]))
    keys = [f"{v}_{m}" for v in VARIANTS for m in ("knee", "slots")]
    missing = [k for k in keys if k not in fig] + ([] if rates else ["rate_0"])
    if missing:
        scenario = trace.scenario.id if trace.scenario.id is not None else "?"
        raise InputError(
            f"load_curve scene: trace of scenario {scenario!r} has no figures {missing}; draw it "
            "from the load_curve scenario (sim.presets.scenarios.run_preset('load_curve/...'))"
        )
    curves = {
        v: Curve(
            v,
            float(fig[f"{v}_slots"]),
            float(fig[f"{v}_knee"]),
            tuple(float(fig[f"{v}_p50_{k}"]) for k in range(len(rates))),
            tuple(float(fig[f"{v}_p99_{k}"]) for k in range(len(rates))),
        )
        for v in VARIANTS
    }
    return tuple(rates), curves


def nice_ceiling(v: float) -> float:
    k = math.floor(math.log10(v)) if v > 0 else 0
    return next((m * 10**k for m in NICE if m * 10**k >= v - 1e-9), 10.0 ** (k + 1))


def _polyline(points: list[tuple[float, float]], top: float) -> tuple[list[tuple[float, float]], bool]:
    """The points cut at the plot's ceiling `top` (y grows downwards); True when cut."""
    out: list[tuple[float, float]] = []
    for a, b in zip([None, *points], points, strict=False):
        if b[1] >= top:
            out.append(b)
            continue
        if a is not None and a[1] >= top:
            f = (a[1] - top) / (a[1] - b[1])
            out.append((a[0] + f * (b[0] - a[0]), top))
        return out, True
    return out, False


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    words = TEXT[ctx.lang]
    rates, curves = read_curves(trace)
    own_v = trace.scenario.variant or ctx.panel.variant or "with"
    own_v = own_v if own_v in curves else "with"
    other_v = "without" if own_v == "with" else "with"
    own, other = curves[own_v], curves[other_v]
    unit_key = "ms" if trace.cost.time_unit == "ms" else "step"
    top = nice_ceiling(min(max(c.p99) for c in curves.values()))
    r1 = max(rates) * 1.06

    def px(r: float) -> float:
        return X0 + r / r1 * (X1 - X0)

    def py(v: float) -> float:
        return Y_BOT - v / top * (Y_BOT - Y_TOP)

    # key: which policy is inked
    x = SCENE_X0
    for variant, colour_ in ((own_v, INK), (other_v, FAINT)):
        cv.stroke(rough.line(cv.rng(f"key-{variant}"), (x, KEY_CY), (x + 16, KEY_CY), 0.2, 1),
                  colour_, width=2.4)
        placed = cv.layout.place(words["slots"].format(n=fmt(curves[variant].slots)), x=x + 20,
                                 cy=KEY_CY, role="label", size=SMALL_SIZE, anchor="start",
                                 floor=None)
        x = placed.box.x1 + 10

    # axes, ticks
    rng = cv.rng("axes")
    cv.stroke(rough.arrow(rng, (X0, Y_BOT), (X1 + 6, Y_BOT), 0.5, 0, 6)
              + rough.arrow(rng, (X0, Y_BOT), (X0, Y_TOP - 10), 0.5, 0, 6), width=1.5)
    ticks = [top * k / 2 for k in range(3)]
    for k, mark in enumerate(ticks[1:], 1):
        cv.stroke(rough.line(cv.rng(f"grid-{k}"), (X0, py(mark)), (X1, py(mark)), 0.3, 1), FAINT,
                  width=0.8)
    for mark in ticks:
        cv.layout.place(fmt(mark), x=X0 - 6, cy=py(mark), role="axis", size=SMALL_SIZE, anchor="end",
                        floor=None)
    cv.stroke("".join(rough.line(rng, (px(r), Y_BOT - 3), (px(r), Y_BOT + 3), 0.2, 1)
                      for r in rates), width=1.2)
    cv.layout.place_row([(fmt(r), px(r)) for r in rates], cy=TICK_CY, role="axis",
                        size=SMALL_SIZE)
    cv.layout.place(words["y"].format(u=words[unit_key]), x=SCENE_X0, cy=Y_TITLE_CY,
                    role="axis", size=SMALL_SIZE, anchor="start", floor=None)
    cv.layout.place(words["x"].format(u1=words[f"{unit_key}1"]), x=X1 + 4, cy=TITLE_CY,
                    role="axis", size=SMALL_SIZE, anchor="end", floor=None)

    # knee guide under the curves
    kx = px(own.knee)
    knee_k = min(range(len(rates)), key=lambda k: abs(rates[k] - own.knee))
    ky = max(py(own.p99[knee_k]), Y_TOP)
    cv.stroke(rough.line(cv.rng("knee-guide"), (kx, Y_BOT), (kx, ky + KNEE_R), 0.3, 1), FAINT,
              width=1.0)

    ends: dict[tuple[str, str], tuple[float, float]] = {}
    inked: list[list[tuple[float, float]]] = []  # the inked curves, which words keep off
    for curve, ink in ((other, FAINT), (own, INK)):
        for metric, values, width in (("p99", curve.p99, 1.2), ("p50", curve.p50, 2.3)):
            pts = [(px(r), py(v)) for r, v in zip(rates, values, strict=True)]
            shown, cut = _polyline(pts, Y_TOP)
            if len(shown) > 1:
                cv.stroke(rough.polyline(cv.rng(f"{curve.variant}-{metric}"), shown, 0.4, False,
                                         1), ink, width=width)
            if cut and shown:
                tip = shown[-1]
                cv.stroke(rough.arrow_head(cv.rng(f"{curve.variant}-{metric}-up"), tip,
                                           shown[-2] if len(shown) > 1 else (tip[0], tip[1] + 5),
                                           6.0, 0.3), ink, width=width)
            for k, (x_, y_) in enumerate(p for p in pts if p[1] >= Y_TOP):
                if metric == "p50":
                    cv.dot(x_, y_, DOT_R if ink == INK else DOT_R - 0.8, ink)
                elif ink == INK:
                    cv.shape(rough.ellipse(cv.rng(f"{curve.variant}-p99-{k}"), x_, y_, DOT_R,
                                           DOT_R, 0.2, 1), fill=PAPER, colour=INK, width=1.1)
            if shown:
                ends[(curve.variant, metric)] = shown[-1]
                if ink == INK:
                    inked.append(shown)

    # the knee ring and its label, then the p50 / p99 names at the inked curves' ends: each
    # word takes the first of its spots that no inked curve and no ring crosses
    cv.stroke(rough.ellipse(cv.rng("knee"), kx, ky, KNEE_R, KNEE_R, 0.6, 1), INK, width=1.6)
    ring = (kx, ky, KNEE_R + 2)
    knee_size = SMALL_SIZE + 0.5
    spots: list[tuple[float, float, Anchor]] = [(kx + KNEE_R + 4, ky + 12, "start"), (kx - KNEE_R - 4, ky - 14, "end"),
             (kx + KNEE_R + 4, ky - 14, "start"), (kx - KNEE_R - 4, ky + 12, "end"),
             (kx + KNEE_R + 4, ky + 26, "start")]
    kx_, ky_, anchor = _clear_spot(cv, words["knee"].format(v=fmt(own.knee)), knee_size, spots,
                                   inked, [])
    cv.layout.place(words["knee"].format(v=fmt(own.knee)), x=kx_, cy=ky_, role="label",
                    size=knee_size, anchor=anchor, floor=None)
    for metric in ("p99", "p50"):
        ex, ey = ends.get((own_v, metric), (X1, Y_TOP))
        if ey <= Y_TOP + 0.5:  # cut at the ceiling: p99's name left of its tip, p50's right
            side = -1.0 if metric == "p99" else 1.0
            side_anchor: Anchor = "end" if side < 0 else "start"
            spots = [(ex + side * 3, Y_TOP - 8, side_anchor), (ex + side * 7, ey + 7, side_anchor),
                     (ex + side * 7, ey + 22, side_anchor)]
        else:
            spots = [(ex + 5, ey, "start"), (ex - 5, ey - 11, "start"), (ex + 5, ey + 12, "start"),
                     (ex - 30, ey + 10, "start")]
        mx, my, anchor = _clear_spot(cv, metric, SMALL_SIZE, spots, inked, [ring])
        cv.layout.try_place(metric, x=mx, cy=my, role="label", size=SMALL_SIZE, anchor=anchor,
                            floor=None)
    slots = fmt(own.slots)
    if ctx.lang == "zh":
        desc = (f"负载曲线：{slots} 个槽位时，首字延迟在每{words[unit_key + '1']} {fmt(own.knee)} 个"
                f"请求处拐弯；{fmt(other.slots)} 个槽位在 {fmt(other.knee)} 处拐弯。")
    else:
        desc = (f"Load curve: with {slots} slots the TTFT turns sharply upward at "
                f"{fmt(own.knee)} requests per {words[unit_key + '1']}; with {fmt(other.slots)} "
                f"slots at {fmt(other.knee)}.")
    return SceneResult(desc, True)


def _clear_spot(
    cv: Canvas,
    text: str,
    size: float,
    spots: list[tuple[float, float, Anchor]],
    lines: list[list[tuple[float, float]]],
    rings: list[tuple[float, float, float]],
) -> tuple[float, float, Anchor]:
    """The first spot whose box is free on the canvas and crossed by no line and no ring; the
    first free one when every spot is crossed, else the first."""
    layout = cv.layout
    family = layout.family

    def box_at(spot: tuple[float, float, Anchor]) -> Box:
        return text_box([text], family, size, spot[0], spot[1], spot[2])

    def crossed(spot: tuple[float, float, Anchor]) -> bool:
        box = box_at(spot)
        x0, y0, x1, y1 = box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1
        for line in lines:
            for (ax, ay), (bx, by) in itertools.pairwise(line):
                for k in range(13):
                    t = k / 12
                    px_, py_ = ax + (bx - ax) * t, ay + (by - ay) * t
                    if x0 <= px_ <= x1 and y0 <= py_ <= y1:
                        return True
        for cx, cy, r in rings:
            nx, ny = min(max(cx, x0), x1), min(max(cy, y0), y1)
            if (nx - cx) ** 2 + (ny - cy) ** 2 <= r * r:
                return True
        return False

    free = [s for s in spots if layout.free(box_at(s))]
    clear = [s for s in free if not crossed(s)]
    return (clear or free or spots)[0]
