"""kv_capacity: the GPU's memory as one bar (weights | other | KV space), the KV space zoomed into
its blocks at the fullest step, the requests that fit standing below, and the arithmetic written
small: KV bytes per token, bytes per block, blocks and tokens that fit.

Every number is a term of the trace's `summary.capacity` (SIM-FIELD.md 2); the blocks and who
holds them come from the step records. The KV sliver of the bar is not to scale (it would be a
hair); the zoom lines say so. The rest of the memory is labelled as left out of the example
(the comic keeps a pool of a few blocks: a reader took "reserved 55.9 GB" for memory vLLM
leaves idle). The zoomed box keeps bytes to scale: an fp8 block is half as wide as a bf16
block, so twice as many fit in the same space.
"""

from __future__ import annotations

from pipeline.artifacts.trace import CapacityView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.key import draw_key
from pipeline.draw.palette import FAINT, INK, TINT_OPACITY, colour
from pipeline.errors import InputError
from pipeline.fields.serving.scenes.common import (
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
)
from pipeline.fields.serving.scenes.kv_blocks import pick_step

X0, X1 = SCENE_X0 + 4, SCENE_X1 - 4
LABEL_CY = 47.0
BAR_Y, BAR_H = 57.0, 16.0
KV_SLIVER = 8.0
BOX_Y, BOX_H = 90.0, 27.0
BEAN_CY = 138.0
BEAN_PITCH = 34.0
MATH_CY = (170.0, 190.0)
MAX_BLOCKS = 24
WORDS = {
    "zh": {"weights": "权重 {v}", "other": "其余（工作内存、图外的 KV）{v}", "kv": "KV {v}",
           "line1": "每个 token KV {tok} ({dtype})，一块 {bs} 个 token {blk}",
           "line2": "{budget} ÷ {blk} = {n} 块，装 {fit} 个 token", "out": "挤出去了"},
    "en": {"weights": "weights {v}", "other": "rest: working memory, KV not drawn {v}", "kv": "KV {v}",
           "line1": "KV per token {tok} ({dtype}), a {bs}-token block {blk}",
           "line2": "{budget} ÷ {blk} = {n} blocks = {fit} tokens", "out": "pushed out"},
}


def size_text(nbytes: float) -> str:
    """Bytes as a reader says them: GB / MB (decimal) for pools, KiB for per-token sizes."""
    if nbytes >= 1e9:
        return f"{fmt(nbytes / 1e9)} GB"
    if nbytes >= 1e6:
        return f"{fmt(nbytes / 1e6)} MB"
    if nbytes >= 1024 and nbytes % 1024 == 0:
        return f"{fmt(nbytes / 1024)} KiB"
    return f"{fmt(nbytes)} B"


def capacity(trace: TraceView) -> CapacityView:
    cap = trace.summary.capacity
    if cap is None:
        scenario = trace.scenario.id if trace.scenario.id is not None else "?"
        raise InputError(
            f"kv_capacity scene: trace of scenario {scenario!r} has no summary.capacity; draw it "
            "from a preset whose engine gives `capacity` (e.g. fp8_kv)"
        )
    return cap


def _bar(cv: Canvas, ctx: SceneContext, cap: CapacityView) -> None:
    words = WORDS[ctx.lang]
    span = X1 - KV_SLIVER - X0
    weights, other = cap.weight_bytes_per_gpu, cap.reserve_bytes
    total = max(weights + other, 1.0)
    ww = span * weights / total
    rng = cv.rng("bar")
    wpoly = rough.rect_poly(X0, BAR_Y, ww, BAR_H)
    cv.stroke(rough.hachure(rng, wpoly, 5), FAINT, width=1.0)
    cv.stroke(rough.rect(rng, X0, BAR_Y, ww, BAR_H, 0.5, 1), width=1.5)
    cv.layout.place(words["weights"].format(v=size_text(weights)), x=X0, cy=LABEL_CY,
                    role="label", size=SMALL_SIZE, anchor="start", floor=None)
    if other > 0:
        ox = X0 + ww
        cv.fill(poly_d(rough.rect_poly(ox, BAR_Y, span - ww, BAR_H)), colour("idle"), 0.18)
        cv.stroke(rough.rect(rng, ox, BAR_Y, span - ww, BAR_H, 0.5, 1), colour("idle"), width=1.3)
        # written inside its own grey part: above it there is no room beside the other two
        cv.layout.place(words["other"].format(v=size_text(other)), x=ox + (span - ww) / 2,
                        cy=BAR_Y + BAR_H / 2 + 1.5, role="label", size=SMALL_SIZE, floor=None,
                        max_width=span - ww - 6)
    kx = X1 - KV_SLIVER
    cv.fill(poly_d(rough.rect_poly(kx, BAR_Y, KV_SLIVER, BAR_H)), colour("running"), 0.6)
    cv.stroke(rough.rect(rng, kx, BAR_Y, KV_SLIVER, BAR_H, 0.3, 1), width=1.5)
    cv.layout.place(words["kv"].format(v=size_text(cap.kv_budget_bytes)), x=X1, cy=LABEL_CY,
                    role="label", size=SMALL_SIZE, anchor="end", floor=None)
    # a loupe round the sliver, its arrow pointing at the box below: the KV space, zoomed in
    lx, ly = kx + KV_SLIVER / 2, BAR_Y + BAR_H / 2
    cv.stroke(rough.ellipse(rng, lx, ly, KV_SLIVER / 2 + 6, BAR_H / 2 + 5, 0.4, 1), width=1.4)
    cv.stroke(rough.arrow(rng, (lx - 8, ly + BAR_H / 2 + 4), (lx - 40, BOX_Y - 4), 0.3, -6, 6),
              width=1.3)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    cap = capacity(trace)
    words = WORDS[ctx.lang]
    draw_key(cv, ctx, ["held", "freed"])
    _bar(cv, ctx, cap)

    step = pick_step(trace)
    prev = trace.step(step.index - 1)
    owners: list[tuple[str | None, str]] = []
    for rid, n in step.blocks.items():
        owners.extend((rid, "running") for _ in range(n))
    for victim in step.preempted:
        n = prev.blocks.get(victim, 0) if prev is not None else 0
        owners.extend((victim, "freed") for _ in range(n))
    owners.extend((None, "free") for _ in range(max(0, step.free_blocks)))
    n_blocks = cap.num_blocks
    shown = min(n_blocks, MAX_BLOCKS)
    box_w = X1 - X0
    if n_blocks <= MAX_BLOCKS and cap.kv_budget_bytes > 0:
        block_w = box_w * cap.block_bytes / cap.kv_budget_bytes
    else:
        block_w = box_w / MAX_BLOCKS
    rng = cv.rng("box")
    cv.stroke(rough.rect(rng, X0 - 2, BOX_Y - 2, box_w + 4, BOX_H + 4, 0.6), width=1.7)
    with cv.batch():
        for i, (owner, kind) in enumerate(owners[:shown]):
            bx = X0 + i * block_w
            _block(cv, f"blk-{i}", bx + 1.5, BOX_Y + 1.5, block_w - 3, BOX_H - 3, cap.block_size,
                   kind)
            if owner is not None and block_w >= 14:
                cv.layout.place(owner, x=bx + block_w / 2, cy=BOX_Y + BOX_H / 2, role="label",
                                size=SMALL_SIZE, floor=None, fill=INK)
    if n_blocks > shown:
        cv.layout.try_place(f"+{n_blocks - shown}", x=X1, cy=BOX_Y + BOX_H + 10, role="label",
                            size=SMALL_SIZE, anchor="end", floor=None)

    fit = list(step.blocks)
    out = [rid for rid in step.preempted if rid not in fit]
    for k, rid in enumerate(fit):
        cast.bean(cv, rid, X0 + 16 + k * BEAN_PITCH, BEAN_CY, "running", eid=f"fit-{rid}",
                  focus=rid in ctx.focus)
    for k, rid in enumerate(reversed(out)):
        bx = X1 - 16 - k * BEAN_PITCH
        cast.bean(cv, rid, bx, BEAN_CY, "freed", eid=f"out-{rid}", focus=rid in ctx.focus)
    if out:
        cv.layout.place(words["out"], x=X1 - 16 - (len(out) - 0.5) * BEAN_PITCH - 4,
                        cy=BEAN_CY, role="label", size=SMALL_SIZE, anchor="end", floor=None)

    line1 = words["line1"].format(tok=size_text(cap.kv_bytes_per_token), dtype=cap.kv_dtype,
                                  bs=cap.block_size, blk=size_text(cap.block_bytes))
    line2 = words["line2"].format(budget=size_text(cap.kv_budget_bytes),
                                  blk=size_text(cap.block_bytes), n=cap.num_blocks,
                                  fit=cap.tokens_fit)
    for text, cy in zip((line1, line2), MATH_CY, strict=True):
        cv.layout.place(text, x=X0, cy=cy, role="label", size=SMALL_SIZE, anchor="start",
                        floor=None, max_width=X1 - X0)
    if ctx.lang == "zh":
        desc = (f"显存条：权重 {size_text(cap.weight_bytes_per_gpu)}，KV 空间 "
                f"{size_text(cap.kv_budget_bytes)}；{cap.kv_dtype} 下每个 token "
                f"{size_text(cap.kv_bytes_per_token)}，装得下 {cap.num_blocks} 块、"
                f"{cap.tokens_fit} 个 token；第 {step.index} 步有 {len(fit)} 个请求在里面。")
    else:
        desc = (f"Memory bar: weights {size_text(cap.weight_bytes_per_gpu)}, KV space "
                f"{size_text(cap.kv_budget_bytes)}; in {cap.kv_dtype} a token takes "
                f"{size_text(cap.kv_bytes_per_token)}, so {cap.num_blocks} blocks "
                f"({cap.tokens_fit} tokens) fit; at step {step.index}, {len(fit)} requests are in.")
    return SceneResult(desc, True)


def _block(cv: Canvas, eid: str, x: float, y: float, w: float, h: float, slots: int,
           kind: str) -> None:
    rng = cv.rng(eid)
    poly = rough.rect_poly(x, y, w, h)
    if kind == "running":
        cv.fill(poly_d(poly), colour("running"), TINT_OPACITY + 0.15)
        cv.stroke(rough.jitter_poly(rng, poly, 0.5), colour("running"), width=1.4)
    elif kind == "freed":
        cv.stroke(rough.jitter_poly(rng, poly, 0.5), colour("freed"), width=1.5, dashed=True)
    else:
        cv.stroke(rough.jitter_poly(rng, poly, 0.5), colour("idle"), width=1.0)
    if 1 < slots <= 8 and w / slots >= 4:
        sw = w / slots
        ticks = "".join(
            rough.line(rng, (x + k * sw, y + 4), (x + k * sw, y + h - 4), 0.2, 1)
            for k in range(1, slots)
        )
        cv.stroke(ticks, colour("idle"), width=0.7)
