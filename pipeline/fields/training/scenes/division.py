"""division: who holds what and works on what. The run's GPUs as boxes: without a pipeline one
box per data-parallel copy of the model, with one a box per pipeline stage (left to right, the
order the activations travel); inside a box a row per GPU that splits each of its layers
(tensor parallelism), with a small square for one layer's weights of which its own part is
cross-hatched. Under each box: the sequences it trains on in a step (the copies take different
ones, the GPUs of one box the same) and each of its GPUs' memory, dashed red when it does not
fit in the GPU's HBM.

Under the boxes, in words, what travels between them: the copies' gradient all-reduce (its
bytes and time, once a step), the partial results a layer's GPUs add up (all-reduces per layer),
the activations passed stage to stage, and what ZeRO shards. So data, tensor and pipeline
parallelism, and their mix, are told apart by the picture: which boxes hold the same weights,
which the same data. Every figure is the run's (`sim train`): the shape, the memory per rank,
the collectives.
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.layout import family_for
from pipeline.draw.palette import INK, colour
from pipeline.fields.training.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SWATCH,
    TAG_LEFT,
    SceneContext,
    SceneResult,
    gb,
    memory_part,
    number,
)
from pipeline.fields.training.scenes.ring import size_text
from pipeline.fields.training.view import TrainingView

MAX_BOXES = 4  # more copies: the first three, then "+n more"
MAX_CELLS = 4  # more GPUs to a layer: the first three, then "+n more"
GAP, STAGE_GAP = 14.0, 16.0  # between boxes; between stages, room for an arrow
MORE_W = 70.0  # room for '+n more copies' on two lines
CELL = 48.0  # one GPU of a box: its square over its name
BOX_TOP = 44.0
HEAD_CY = 56.0
SQUARE = 19.0  # one layer's weights: this tall, and this wide when whole
PART_W = 10.0  # a split layer's matrix is this wide a part, so one part stays visible
LINE = 20.0  # from one label's centre to the next
BAND_FIRST, BAND_LAST = 17.0, 188.0  # the first band line under the boxes; the lowest
TEXT = {
    "zh": {"key": "每张 GPU 自己存的那部分权重", "copy": "副本 {c}", "all": "全部 {L} 层",
           "layers": "第 {a}-{b} 层", "layers2": "第 {a}-{b}、{c}-{d} 层", "gpu": "GPU {g}",
           "more": "另 {n} 个副本", "more_stages": "另 {n} 段", "more_gpus": "另 {n} 张", "seq": "序列 {a}-{b}", "seq1": "序列 {a}",
           "mem": "{v} GB", "over": "红虚线：每张要 {v} GB，超出 {hbm} GB 显存",
           "dp": "{n} 个副本每步全归约梯度：{size}，{ms} 毫秒",
           "tp": "一层的 {n} 张 GPU 各算一份再相加：每层全归约 {k} 次",
           "tp_step": "一层的 {n} 张 GPU 各算一份再相加：每步全归约 {k} 次",
           "pp": "箭头：激活传给下一段，反向时梯度传回来", "network": "，走网络", "nvlink": "，走NVLink",
           "nodes": "，跨 {n} 个节点", "of": "副本 1/{n}："},
    "en": {"key": "the part of each layer's weights it holds", "copy": "copy {c}",
           "all": "all {L} layers", "layers": "layers {a}-{b}", "layers2": "layers {a}-{b}, {c}-{d}",
           "gpu": "GPU {g}", "more": "+{n} more copies", "more_stages": "+{n} more stages",
           "more_gpus": "+{n} more", "seq": "seq {a}-{b}",
           "seq1": "seq {a}", "mem": "{v} GB", "over": "dashed red: {v} GB a GPU, over its {hbm} GB",
           "dp": "the {n} copies all-reduce their gradients: {size}, {ms} ms a step",
           "tp": "a layer's {n} GPUs add up their parts: {k} all-reduces a layer",
           "tp_step": "a layer's {n} GPUs add up their parts: {k} all-reduces a step",
           "pp": "arrows: activations on to the next stage, gradients back",
           "network": ", over the network", "nvlink": ", on NVLink", "nodes": ", {n} nodes",
           "of": "copy 1 of {n}: "},
}
ZERO = {  # what ZeRO stage z shards over the n data-parallel GPUs
    "zh": {1: "ZeRO-1：每张只存 1/{n} 的优化器状态", 2: "ZeRO-2：每张只存 1/{n} 的优化器状态和梯度",
           3: "ZeRO-3：每张只存 1/{n} 的权重、梯度和优化器状态"},
    "en": {1: "ZeRO-1: each GPU keeps 1/{n} of the optimizer states",
           2: "ZeRO-2: each GPU keeps 1/{n} of the optimizer states and gradients",
           3: "ZeRO-3: each GPU keeps 1/{n} of the weights, gradients and optimizer"},
}


def _layers(view: TrainingView, stage: int, lang: str) -> str:
    """The layers pipeline stage `stage` holds: one run of them, or two when interleaved (a
    GPU holds chunks k and k + pp), numbered from 1."""
    words = TEXT[lang]
    if view.pp == 1 or not view.layers:
        return words["all"].format(L=view.layers)
    chunks = view.pp * view.virtual_stages
    per = view.layers // chunks
    runs = [(c * per + 1, (c + 1) * per) for c in range(stage, chunks, view.pp)]
    if len(runs) == 2:
        (a, b), (c, d) = runs
        return words["layers2"].format(a=a, b=b, c=c, d=d)
    return words["layers"].format(a=runs[0][0], b=runs[-1][1])


def _sequences(view: TrainingView, copy: int, lang: str) -> str:
    per = max(1, view.global_batch // max(view.dp, 1))
    a, b = copy * per + 1, (copy + 1) * per
    words = TEXT[lang]
    return words["seq1"].format(a=a) if a == b else words["seq"].format(a=a, b=b)


def square_width(parts: int) -> float:
    return SQUARE if parts == 1 else min(CELL - 6, PART_W * parts)


def _square(cv: Canvas, eid: str, x: float, y: float, parts: int, own: int) -> None:
    """One layer's weights, split into `parts` columns, the GPU's own column cross-hatched and
    tinted (the others are left empty: another GPU holds them)."""
    width = square_width(parts)
    w = width / parts
    if parts > 1:  # tinted, darker when the part is a thin sliver
        cv.fill(poly_d(rough.rect_poly(x + own * w, y, w, SQUARE)), INK,
                0.12 if parts <= MAX_CELLS else 0.4)
    memory_part(cv, eid, "params", x + own * w, y, w, SQUARE)
    cv.stroke(rough.rect(cv.rng(f"{eid}-box"), x, y, width, SQUARE, 0.3, 1), width=1.1)
    for k in range(1, parts):
        cv.stroke(rough.line(cv.rng(f"{eid}-cut{k}"), (x + k * w, y), (x + k * w, y + SQUARE),
                             0.2, 1), INK, width=0.7)


def cells_drawn(tp: int) -> int:
    """The GPUs a box draws of its layer's group: all up to 4, else the first two and a
    count of the rest (two boxes of eight GPUs still fit side by side)."""
    return tp if tp <= MAX_CELLS else 2


def box_rows(view: TrainingView, lang: str, w: float) -> int:
    """Lines of the boxes' heads: two when an interleaved GPU's two runs of layers do not fit
    on one."""
    heads = [head_text(view, k, lang) for k in range(min(units(view), MAX_BOXES))]
    widest = max(fonts.measure(h, family_for(h, lang), SMALL_SIZE) for h in heads)
    return 1 if widest <= w - 3 else 2


def _widest(view: TrainingView, lang: str, boxes: int) -> float:
    """The widest one-line word a box writes (its sequences, its memory), so a box is never
    drawn too narrow for them."""
    words = [_sequences(view, 0 if view.pp > 1 else k, lang) for k in range(boxes)]
    if view.memory:
        words.append(TEXT[lang]["mem"].format(v=gb(view.peak.total)))
    return max(fonts.measure(w, family_for(w, lang), SMALL_SIZE) for w in words)


def units(view: TrainingView) -> int:
    """The boxes: pipeline stages, else data-parallel copies."""
    return view.pp if view.pp > 1 else view.dp


def head_text(view: TrainingView, unit: int, lang: str) -> str:
    """A box's name: a stage's layers, a copy's number, or a lone copy's layers."""
    words = TEXT[lang]
    if view.pp > 1:  # the boxes are copy 1's stages: the other copies are said (reader hf7)
        name = _layers(view, unit, lang)
        if view.dp > 1:
            name = words["of"].format(n=view.dp) + name
    else:
        name = _layers(view, 0, lang) if view.dp == 1 else words["copy"].format(c=unit + 1)
    spans = -(-view.tp // view.gpus_per_node)  # a box's GPUs are one layer's group
    return name + (words["nodes"].format(n=spans) if spans > 1 else "")


def box_bottom(head_lines: int) -> float:
    return HEAD_CY + (head_lines - 1) * 16 + 12 + SQUARE + 3 * LINE + 4


def _box(cv: Canvas, ctx: SceneContext, unit: int, x: float, w: float,
         head_lines: int) -> None:
    view, words = ctx.run, TEXT[ctx.lang]
    stage = unit if view.pp > 1 else 0
    mem = view.memory[stage] if view.memory else None
    fits = mem is None or mem.fits
    bottom = box_bottom(head_lines)
    cv.stroke(rough.rect(cv.rng(f"box-{unit}"), x, BOX_TOP, w, bottom - BOX_TOP, 0.5, 1),
              width=1.5)
    if not fits:
        cv.stroke(rough.rect(cv.rng(f"over-{unit}"), x - 3, BOX_TOP - 3, w + 6,
                             bottom - BOX_TOP + 6, 0.3, 1), colour("freed"), width=1.6,
                  dashed=True)
    head = head_text(view, unit, ctx.lang)
    cx = x + w / 2
    cv.layout.place(head, x=cx, cy=HEAD_CY + (head_lines - 1) * 8, role="label",
                    size=SMALL_SIZE, floor=None, max_width=w - 3, max_lines=head_lines)
    square_top = HEAD_CY + (head_lines - 1) * 16 + 12
    gpu_cy = square_top + SQUARE + LINE / 2 + 1
    cells = cells_drawn(view.tp)
    first = unit * view.tp  # GPU numbers: a box's GPUs in turn
    x0 = cx - CELL * (cells + (view.tp > cells)) / 2
    for r in range(cells):
        mid = x0 + CELL * (r + 0.5)
        _square(cv, f"sq-{unit}-{r}", mid - square_width(view.tp) / 2, square_top, view.tp, r)
        cv.layout.place(words["gpu"].format(g=first + r), x=mid, cy=gpu_cy, role="label",
                        size=SMALL_SIZE, floor=None, max_width=CELL - 2)
    if view.tp > cells:
        cv.layout.place(words["more_gpus"].format(n=view.tp - cells), x=x0 + CELL * (cells + 0.5),
                        cy=gpu_cy, role="label", size=SMALL_SIZE, floor=None, max_width=CELL)
    copy = 0 if view.pp > 1 else unit
    cv.layout.place(_sequences(view, copy, ctx.lang), x=cx, cy=gpu_cy + LINE, role="label",
                    size=SMALL_SIZE, floor=None, max_width=w - 3)
    if mem is not None:
        cv.layout.place(words["mem"].format(v=gb(mem.total)), x=cx, cy=gpu_cy + 2 * LINE, role="label",
                        size=SMALL_SIZE, floor=None, max_width=w - 3,
                        fill=None if fits else colour("freed"))


def _arrow(cv: Canvas, eid: str, x0: float, x1: float, y: float) -> None:
    cv.stroke(rough.arrow(cv.rng(eid), (x0 + 2, y), (x1 - 2, y), 0.2, 0, 4), width=1.3)


def band_lines(view: TrainingView, lang: str) -> list[str]:
    """What travels between the boxes and what does not fit, most telling first."""
    words = TEXT[lang]
    lines = []
    peak = view.peak if view.memory else None
    if peak is not None and not peak.fits:
        lines.append(words["over"].format(v=gb(peak.total), hbm=gb(view.hbm)))
    tensor = view.collective("tp")
    if view.tp > 1 and tensor is not None:
        own_layers = view.layers // view.pp if view.layers else 0  # a GPU's share of them
        per_layer = tensor.per_step / max(1, own_layers * view.microbatches)
        line = (words["tp"].format(n=view.tp, k=int(per_layer))
                if own_layers and per_layer == int(per_layer)
                else words["tp_step"].format(n=view.tp, k=tensor.per_step))
        lines.append(line + words[tensor.link])
    if view.pp > 1:
        hop = view.collective("pp")
        lines.append(words["pp"] + (words[hop.link] if hop is not None else ""))
    ring = view.collective("dp") or view.collective("fsdp")
    if view.dp > 1 and ring is not None:
        lines.append(words["dp"].format(n=view.dp, size=size_text(ring.bytes),
                                        ms=number(1000.0 * ring.time)))
    if view.zero and view.dp > 1:
        lines.append(ZERO[lang][view.zero].format(n=view.dp))
    return lines


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    view: TrainingView = ctx.run
    words = TEXT[ctx.lang]
    memory_part(cv, "key-own", "params", SCENE_X0, KEY_CY - SWATCH / 2, SWATCH, SWATCH)
    cv.stroke(rough.rect(cv.rng("key-own-box"), SCENE_X0, KEY_CY - SWATCH / 2, SWATCH, SWATCH,
                         0.3, 1), width=1.0)
    cv.layout.place(words["key"], x=SCENE_X0 + SWATCH + 4, cy=KEY_CY, role="label",
                    size=SMALL_SIZE, anchor="start", floor=None,
                    max_width=TAG_LEFT - SCENE_X0 - SWATCH - 8)
    boxes = units(view)
    gap = STAGE_GAP if view.pp > 1 else GAP
    need = max(CELL * (cells_drawn(view.tp) + (view.tp > MAX_CELLS)) + 8,
               _widest(view, ctx.lang, min(boxes, MAX_BOXES)) + 6)
    span = SCENE_X1 - SCENE_X0
    drawn = min(boxes, MAX_BOXES)
    while drawn > 1 and drawn * need + gap * (drawn - 1) > span:
        drawn -= 1
    if drawn < boxes:  # the last place goes to "+n more"
        drawn = max(1, drawn - 1) if drawn * need + gap * drawn + MORE_W > span else drawn
    more = boxes - drawn
    width = span - (MORE_W + gap if more else 0)
    w = min((width - gap * (drawn - 1)) / drawn, max(need, 110.0))
    left = SCENE_X0 + (width - (w * drawn + gap * (drawn - 1))) / 2
    head_lines = box_rows(view, ctx.lang, w)
    bottom = box_bottom(head_lines)
    for unit in range(drawn):
        x = left + unit * (w + gap)
        _box(cv, ctx, unit, x, w, head_lines)
        if view.pp > 1 and unit:
            _arrow(cv, f"stage-{unit}", x - gap, x, (BOX_TOP + bottom) / 2)
    if more:
        x = left + drawn * (w + gap)
        cv.layout.place(words["more_stages" if view.pp > 1 else "more"].format(n=more),
                        x=(x + SCENE_X1) / 2, cy=(BOX_TOP + bottom) / 2, role="label",
                        size=SMALL_SIZE, floor=None, max_width=SCENE_X1 - x - 2, max_lines=2)
    lines = band_lines(view, ctx.lang)
    band = [cy for cy in (bottom + BAND_FIRST, bottom + BAND_FIRST + LINE) if cy <= BAND_LAST]
    for text, cy in zip(lines, band, strict=False):
        cv.layout.place(text, x=SCENE_X0, cy=cy, role="label", size=SMALL_SIZE,
                        anchor="start", floor=None, max_width=SCENE_X1 - SCENE_X0)
    return SceneResult(_desc(ctx.lang, view, lines), True)


def _desc(lang: str, view: TrainingView, lines: list[str]) -> str:
    per = max(1, view.global_batch // max(view.dp, 1))
    if lang == "zh":
        shape = (f"{view.gpus} 张 GPU：{view.dp} 个模型副本，每个副本每步训练 {per} 条序列；"
                 f"每层分给 {view.tp} 张 GPU；流水线 {view.pp} 段")
        return shape + "。" + "；".join(lines) + ("。" if lines else "")
    shape = (f"{view.gpus} GPUs: {view.dp} copies of the model, each training {per} sequences a "
             f"step; each layer split across {view.tp} GPUs; {view.pp} pipeline stages")
    return shape + ". " + "; ".join(lines) + ("." if lines else "")
