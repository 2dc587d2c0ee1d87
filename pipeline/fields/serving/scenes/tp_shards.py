"""tp_shards: tensor parallelism as tp GPU characters, each with its memory gauge (its slice of the
weights below, its share of the KV pool above), joined by a link; under them one decode step's
time bar split into reading memory, the all-reduce sliver and the step's fixed cost (so its
parts add up to the step), and (drawn beneath, since the step takes the slower of the two) the
arithmetic, whose legend says it runs during the read (a reader added it to the parts).

Sizes come from `summary.capacity`; the step's parts from the trace's `figures` (the roofline
cost model that timed the steps, `sim.presets.scenarios.parallel_figures`). The time bar's scale
is the memory read of the whole model on one GPU, so a 2-GPU and a 4-GPU panel draw alike.
"""

from __future__ import annotations

from pipeline.artifacts.trace import TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import FAINT, INK, TINT_OPACITY, colour
from pipeline.errors import InputError
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
)
from pipeline.fields.serving.scenes.kv_capacity import capacity, size_text

X0, X1 = SCENE_X0 + 4, SCENE_X1 - 4
GPU_CY = 76.0
GAUGE_DX, GAUGE_W = 38.0, 11.0
GAUGE_Y0, GAUGE_Y1 = 48.0, 106.0
BUS_Y = 117.0
EACH_CY = 130.0
BAR_Y, BAR_H = 143.0, 18.0
CALC_Y, CALC_H = 164.0, 7.0
LEGEND_CY = 187.0
MIN_SLIVER = 3.0
MAX_GPUS = 4
MAX_PITCH = 120.0  # two GPUs stand together, not at the panel's far ends
FIGURE_KEYS = ("decode_step_ms", "decode_memory_ms", "decode_compute_ms", "decode_allreduce_ms",
               "decode_overhead_ms", "tp")
WORDS = {
    "zh": {"head": "{tp} 张 GPU，每张存 1/{tp} 的权重", "each": "每张：权重 {w}，KV {kv}",
           "step": "一步 {v} 毫秒", "memory": "读显存 {v}", "allreduce": "全归约 {v}",
           "fixed": "固定 {v}", "compute": "算 {v}，和读同时"},
    "en": {"head": "{tp} GPUs, each holds 1/{tp} of the weights",
           "each": "each: weights {w}, KV {kv}", "step": "one step {v} ms",
           "memory": "memory {v}", "allreduce": "all-reduce {v}", "fixed": "fixed {v}",
           "compute": "math {v}, in the read"},
}


def read_figures(trace: TraceView) -> dict[str, float]:
    missing = [k for k in FIGURE_KEYS if k not in trace.figures]
    if missing:
        scenario = trace.scenario.id if trace.scenario.id is not None else "?"
        raise InputError(
            f"tp_shards scene: trace of scenario {scenario!r} has no figures {missing}; draw it "
            "from the tensor_parallel scenario (sim.presets.scenarios.run_preset)"
        )
    return {k: float(trace.figures[k]) for k in FIGURE_KEYS}


def _gauge(cv: Canvas, eid: str, x: float, weights: float, kv: float) -> None:
    """One GPU's memory, bottom up: its weight slice (hatched), then its KV share (green)."""
    rng = cv.rng(eid)
    total = max(weights + kv, 1.0)
    h = GAUGE_Y1 - GAUGE_Y0
    wh = h * weights / total
    wpoly = rough.rect_poly(x, GAUGE_Y1 - wh, GAUGE_W, wh)
    cv.stroke(rough.hachure(rng, wpoly, 4), FAINT, width=0.9)
    kh = h - wh
    if kh > 0.5:
        cv.fill(poly_d(rough.rect_poly(x, GAUGE_Y0, GAUGE_W, kh)), colour("running"),
                TINT_OPACITY + 0.15)
    cv.stroke(rough.line(rng, (x, GAUGE_Y1 - wh), (x + GAUGE_W, GAUGE_Y1 - wh), 0.2, 1),
              width=1.0)
    cv.stroke(rough.rect(rng, x, GAUGE_Y0, GAUGE_W, h, 0.4, 1), width=1.4)


def _legend_swatch(cv: Canvas, kind: str, x: float, cy: float) -> None:
    rng = cv.rng(f"lg-{kind}")
    poly = rough.rect_poly(x, cy - 5, 10, 10)
    if kind == "memory":
        cv.stroke(rough.hachure(rng, poly, 3.5), FAINT, width=0.9)
        cv.stroke(rough.jitter_poly(rng, poly, 0.3), width=1.1)
    elif kind == "allreduce":
        cv.fill(poly_d(poly), INK, 0.75)
    elif kind == "fixed":
        cv.stroke(rough.jitter_poly(rng, poly, 0.3), width=1.1, dashed=True)
    else:
        cv.fill(poly_d(poly), colour("running"), TINT_OPACITY + 0.2)
        cv.stroke(rough.jitter_poly(rng, poly, 0.3), colour("running"), width=1.1)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    cap = capacity(trace)
    fig = read_figures(trace)
    words = WORDS[ctx.lang]
    tp = int(fig["tp"])
    cv.layout.place(words["head"].format(tp=tp), x=SCENE_X0, cy=KEY_CY, role="label",
                    size=SMALL_SIZE, anchor="start", floor=None)

    shown = min(tp, MAX_GPUS)
    pitch = min((X1 - X0) / shown, MAX_PITCH)
    left = X0 + ((X1 - X0) - pitch * shown) / 2
    kv_each = cap.kv_budget_bytes / max(cap.tp, 1)
    centres = [left + pitch * (i + 0.5) - GAUGE_DX / 3 for i in range(shown)]
    rng = cv.rng("bus")
    bus = rough.line(rng, (centres[0], BUS_Y), (centres[-1], BUS_Y), 0.4, 2) if shown > 1 else ""
    for cx in centres:
        bus += rough.line(rng, (cx, GPU_CY + 34), (cx, BUS_Y), 0.2, 1)
    if bus:
        cv.stroke(bus, width=1.4)
    for i, cx in enumerate(centres):
        cast.gpu(cv, cx, GPU_CY, busy=True, eid=f"gpu-{i}")
        _gauge(cv, f"gauge-{i}", cx + GAUGE_DX, cap.weight_bytes_per_gpu, kv_each)
    cv.layout.place(words["each"].format(w=size_text(cap.weight_bytes_per_gpu),
                                         kv=size_text(kv_each)),
                    x=SCENE_X0 + (SCENE_X1 - SCENE_X0) / 2, cy=EACH_CY, role="label",
                    size=SMALL_SIZE, floor=None)

    # one decode step, scaled so that the whole model's read on ONE GPU spans the panel
    one_gpu = fig["decode_memory_ms"] * tp * 1.06 or 1.0
    scale = (X1 - X0) / one_gpu
    mw = fig["decode_memory_ms"] * scale
    aw = max(MIN_SLIVER, fig["decode_allreduce_ms"] * scale) if fig["decode_allreduce_ms"] else 0
    rng = cv.rng("step")
    poly = rough.rect_poly(X0, BAR_Y, mw, BAR_H)
    cv.fill(poly_d(poly), "var(--paper)")
    cv.stroke(rough.hachure(rng, poly, 6), FAINT, width=1.0)
    cv.stroke(rough.rect(rng, X0, BAR_Y, mw, BAR_H, 0.5, 1), width=1.6)
    if aw:
        cv.fill(poly_d(rough.rect_poly(X0 + mw, BAR_Y, aw, BAR_H)), INK, 0.75)
    # the step's fixed cost (launch, scheduling, per-request bookkeeping): dashed, empty
    fw = max(MIN_SLIVER, fig["decode_overhead_ms"] * scale) if fig["decode_overhead_ms"] else 0
    if fw:
        cv.stroke(rough.rect(rng, X0 + mw + aw, BAR_Y, fw, BAR_H, 0.3, 1), width=1.2,
                  dashed=True)
    aw += fw
    cw = max(MIN_SLIVER, fig["decode_compute_ms"] * scale)
    cv.fill(poly_d(rough.rect_poly(X0, CALC_Y, cw, CALC_H)), colour("running"),
            TINT_OPACITY + 0.2)
    cv.stroke(rough.rect(rng, X0, CALC_Y, cw, CALC_H, 0.3, 1), colour("running"), width=1.3)
    cv.layout.place(words["step"].format(v=fmt(fig["decode_step_ms"])), x=X0 + mw + aw + 7,
                    cy=BAR_Y + BAR_H / 2, role="label", size=SMALL_SIZE + 0.5, anchor="start",
                    floor=None)

    x = X0
    items = [("memory", fig["decode_memory_ms"]), ("allreduce", fig["decode_allreduce_ms"]),
             ("fixed", fig["decode_overhead_ms"]), ("compute", fig["decode_compute_ms"])]
    for kind, value in items:
        if kind in ("allreduce", "fixed") and not value:
            continue
        _legend_swatch(cv, kind, x, LEGEND_CY)
        placed = cv.layout.place(words[kind].format(v=fmt_ms(value)), x=x + 13, cy=LEGEND_CY,
                                 role="label", size=SMALL_SIZE, anchor="start", floor=None)
        x = placed.box.x1 + 10
    step, ar = fmt(fig["decode_step_ms"]), fmt_ms(fig["decode_allreduce_ms"])
    if ctx.lang == "zh":
        desc = (f"{tp} 张 GPU 各存 {size_text(cap.weight_bytes_per_gpu)} 权重、"
                f"{size_text(kv_each)} KV；一步解码 {step} 毫秒，其中全归约 {ar} 毫秒。")
    else:
        desc = (f"{tp} GPUs each hold {size_text(cap.weight_bytes_per_gpu)} of weights and "
                f"{size_text(kv_each)} of KV; a decode step takes {step} ms, {ar} ms of it "
                "all-reduce.")
    return SceneResult(desc, True)


def fmt_ms(v: float) -> str:
    """Milliseconds: one decimal, or two significant places below 0.1."""
    return f"{v:.2f}" if 0 < v < 0.095 else fmt(v)
