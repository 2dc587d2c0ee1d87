"""memory: each pipeline GPU's memory at its fullest as a stacked bar — weights (with ZeRO-3's
gather buffer), gradients, optimizer states, activations, bottom up — against the GPU's HBM
line. The part of a bar above the line does not fit: outlined red dashed, and the GPU at the
left is greyed out (it cannot run the step) with how far over it is. On a single bar, the
model states the run splits across GPUs (ZeRO's stages over the data-parallel group, tensor
parallelism's slices) are bracketed on the bar's right with how many ways they are split, so
the mechanism, not only the total, is in the picture.

Bars share one scale across the card's two panels: the larger of the fuller GPU of the two runs
(of one scenario, or of two when both panels are memory pictures) and the HBM, so the trouble
and the fix compare at one scale. Every size is the
run's `memory` (bytes, DeepSpeed's accounting for the model states, Korthikanti et al. for the
activations).
"""

from __future__ import annotations

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import INK, colour
from pipeline.errors import InputError
from pipeline.fields.training.scenes.common import (
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    WORDS,
    SceneContext,
    SceneResult,
    card_extent,
    draw_key,
    gb,
    gpu_name,
    memory_part,
)
from pipeline.fields.training.view import RankMemory, TrainingView

MAX_BARS = 4
BARS_X0, BARS_X1 = 122.0, 322.0
BAR_TOP, BAR_BOT = 58.0, 176.0
RANK_CY = 189.0
MAX_BAR_W = 44.0
LABEL_ABOVE = 9.0  # a total's centre above its bar's top
CHIP_X, CHIP_CY = 50.0, 90.0
LEFT_CY = (146.0, 166.0, 186.0)
KEY_WORDS = {"zh": {"grads": "梯度"}, "en": {"grads": "grads"}}
TEXT = {
    "zh": {"hbm": "显存 {v} GB", "alike": "共 {n} 张，都一样", "stage": "每张 {l}/{L} 层", "one": "就 1 张", "over": "超出 {v} GB",
           "fits": "装得下", "total": "{v} GB", "split": "{n} 张分摊", "no_grads": "不存 bf16 梯度"},
    "en": {"hbm": "HBM {v} GB", "alike": "{n} GPUs alike", "stage": "{l}/{L} layers each", "one": "1 GPU", "over": "{v} GB over",
           "fits": "it fits", "total": "{v} GB", "split": "split {n} ways",
           "no_grads": "no bf16 grads"},
}
STATES = ("params", "grads", "optimizer")  # bottom up, as the bar stacks them
SPLIT_GAP = 5.0  # between a bar's right edge and its bracket


def split_ways(view: TrainingView) -> dict[str, int]:
    """How many GPUs share each model state of one GPU's bar: ZeRO stage z splits the optimizer
    states (z >= 1), the gradients (z >= 2) and the weights (z >= 3) over the data-parallel
    group; tensor parallelism splits all three over its group."""
    ways = {}
    for k, part in enumerate(STATES):
        zero = view.dp if view.zero >= 3 - k and view.dp > 1 else 1
        ways[part] = zero * view.tp
    return ways


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    view: TrainingView = ctx.run
    if len(view.memory) > MAX_BARS:
        raise InputError(f"memory scene: {len(view.memory)} pipeline GPUs, at most {MAX_BARS} "
                         "bars fit")
    words = TEXT[ctx.lang]
    draw_key(cv, ctx.lang, ["params", "grads", "optimizer", "activations"],
             short=KEY_WORDS[ctx.lang])
    top = max(card_extent(ctx, view.pair_peak, lambda v: v.peak.total), view.peak.total, view.hbm)
    scale = (BAR_BOT - BAR_TOP) / top
    hbm_y = BAR_BOT - view.hbm * scale
    n = len(view.memory)
    pitch = (BARS_X1 - BARS_X0) / n
    bar_w = min(MAX_BAR_W, pitch * 0.55)
    for rank, mem in enumerate(view.memory):
        cx = BARS_X0 + pitch * (rank + 0.5)
        _bar(cv, rank, mem, cx - bar_w / 2, bar_w, scale, hbm_y)
        total, bar_top = words["total"].format(v=gb(mem.total)), BAR_BOT - mem.total * scale
        cy = total_cy(bar_top, hbm_y)
        if n == 1 and cy < bar_top - LABEL_ABOVE - 1:
            # pushed above the HBM line it reads as the line's own number (reader hf2: "64.7 GB"
            # on the 80 GB line): a single bar takes it at its top, on its left
            cv.layout.place(total, x=cx - bar_w / 2 - 6, cy=bar_top + 6, role="label",
                            size=SMALL_SIZE, anchor="end", floor=None)
        else:
            cv.layout.place(total, x=cx, cy=cy, role="label", size=SMALL_SIZE, floor=None)
        name = gpu_name(ctx.lang, rank) if view.pp > 1 else WORDS[ctx.lang]["each_gpu"]
        cv.layout.place(name, x=cx, cy=RANK_CY, role="label", size=SMALL_SIZE, floor=None)
    rng = cv.rng("hbm")
    cv.stroke(rough.line(rng, (BARS_X0 - 6, hbm_y), (SCENE_X1, hbm_y), 0.4, 1), INK, width=2.0)
    cv.layout.place(words["hbm"].format(v=gb(view.hbm)), x=SCENE_X1, cy=hbm_y + 10,
                    role="label", size=SMALL_SIZE, anchor="end", floor=None,
                    max_width=SCENE_X1 - BARS_X1 - 4, max_lines=2)
    if n == 1:
        _splits(cv, ctx.lang, view, view.memory[0], BARS_X0 + pitch / 2 + bar_w / 2, scale)
    fits = all(m.fits for m in view.memory)
    cast.gpu(cv, CHIP_X, CHIP_CY, busy=fits, eid="gpu")
    gpus = view.dp * view.tp if view.pp == 1 else view.pp
    first = words["alike"].format(n=gpus) if view.pp == 1 and gpus > 1 else (
        words["one"] if gpus == 1 else "")
    if view.pp > 1 and view.layers:  # a pipeline GPU's bar is its own layers' (reader hf5)
        first = words["stage"].format(l=view.layers // view.pp, L=view.layers)
    over = max(0.0, view.peak.total - view.hbm)
    second = words["over"].format(v=gb(over)) if not fits else words["fits"]
    # ZeRO-3 keeps no bf16 gradients (they go straight into the fp32 shard, drawn with the
    # optimizer): three readers took the missing gradient block for a drawing error
    third = words["no_grads"] if any(not m.grads and m.fp32_grads for m in view.memory) else ""
    for text, cy in zip((first, second, third), LEFT_CY, strict=True):
        if text:
            cv.layout.place(text, x=SCENE_X0, cy=cy, role="label", size=SMALL_SIZE,
                            anchor="start", floor=None, max_width=BARS_X0 - SCENE_X0 - 8)
    return SceneResult(_desc(ctx.lang, view), True)


def _splits(cv: Canvas, lang: str, view: TrainingView, mem: RankMemory, right: float,
            scale: float) -> None:
    """A bracket right of the bar for each run of adjacent model states split the same number
    of ways, with that number."""
    ways = split_ways(view)
    sizes = {"params": mem.params + mem.buffers, "grads": mem.grads, "optimizer": mem.optimizer}
    y = BAR_BOT
    groups: list[tuple[int, float, float]] = []  # ways, bottom, top
    for part in STATES:
        h = sizes[part] * scale
        if ways[part] > 1 and h > 0.2:
            if groups and groups[-1][0] == ways[part] and abs(groups[-1][2] - y) < 0.01:
                groups[-1] = (ways[part], groups[-1][1], y - h)
            else:
                groups.append((ways[part], y, y - h))
        y -= h
    x = right + SPLIT_GAP
    for k, (n, bottom, top) in enumerate(groups):
        rng = cv.rng(f"split-{k}")
        mid = (bottom + top) / 2
        cv.stroke(rough.line(rng, (x, bottom), (x + 3, bottom), 0.2, 1)
                  + rough.line(rng, (x + 3, bottom), (x + 3, top), 0.2, 1)
                  + rough.line(rng, (x, top), (x + 3, top), 0.2, 1), INK, width=1.1)
        cv.layout.place(TEXT[lang]["split"].format(n=n), x=x + 7, cy=mid, role="label",
                        size=SMALL_SIZE, anchor="start", floor=None)


def total_cy(bar_top: float, hbm_y: float) -> float:
    """Where a bar's total sits: just above the bar, or above the HBM line when the bar ends
    just under it (the words never sit on the line)."""
    cy = bar_top - LABEL_ABOVE
    if bar_top > hbm_y and cy - LABEL_ABOVE < hbm_y + 2:
        return hbm_y - LABEL_ABOVE - 2
    return cy


def _bar(cv: Canvas, rank: int, mem: RankMemory, x: float, w: float, scale: float,
         hbm_y: float) -> None:
    y = BAR_BOT
    parts = (("params", mem.params + mem.buffers), ("grads", mem.grads),
             ("optimizer", mem.optimizer), ("activations", mem.activations))
    with cv.batch():
        for part, nbytes in parts:
            h = nbytes * scale
            memory_part(cv, f"bar-{rank}-{part}", part, x, y - h, w, h)
            y -= h
    rng = cv.rng(f"bar-{rank}")
    cv.stroke(rough.rect(rng, x, y, w, BAR_BOT - y, 0.5, 1), width=1.5)
    if not mem.fits:
        cv.stroke(rough.rect(cv.rng(f"over-{rank}"), x - 3, y - 3, w + 6, hbm_y - y + 3, 0.3, 1),
                  colour("freed"), width=1.6, dashed=True)


def _desc(lang: str, view: TrainingView) -> str:
    hbm = gb(view.hbm)
    parts = []
    for rank, m in enumerate(view.memory):
        sizes = (gb(m.params + m.buffers), gb(m.grads), gb(m.optimizer), gb(m.activations))
        fits = m.fits
        # the weight block holds ZeRO-3's gather buffer too: say how much of it is the buffer
        buffer = ""
        if m.buffers:
            buffer = (f"（其中收集缓冲 {gb(m.buffers)}）" if lang == "zh"
                      else f" incl. a {gb(m.buffers)} gather buffer")
        # ZeRO-3 keeps no bf16 gradients: they are reduce-scattered straight into the fp32
        # shard the optimizer steps on; "gradients 0" alone read as gradients vanishing
        grads = sizes[1]
        if not m.grads and m.fp32_grads:
            grads = (f"{grads}（只剩 fp32 的那一份 {gb(m.fp32_grads)} GB，算在优化器里）" if lang == "zh"
                     else f"{grads} in bf16 (only their fp32 shard, {gb(m.fp32_grads)} GB, counted "
                     "with the optimizer)")
        if lang == "zh":
            parts.append(f"GPU {rank} 共 {gb(m.total)} GB（权重 {sizes[0]}{buffer}、梯度 "
                         f"{grads}、优化器 {sizes[2]}、激活 {sizes[3]}），"
                         f"{'装得下' if fits else '装不下'}")
        else:
            parts.append(f"GPU {rank} {gb(m.total)} GB (weights {sizes[0]}{buffer}, gradients "
                         f"{grads}, optimizer {sizes[2]}, activations {sizes[3]}), "
                         f"{'fits' if fits else 'does not fit'}")
    if lang == "zh":
        return f"每张 GPU 的显存（{hbm} GB）：" + "；".join(parts) + "。"
    return f"Memory per GPU against {hbm} GB of HBM: " + "; ".join(parts) + "."
