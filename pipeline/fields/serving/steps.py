"""`draw_step_strip`: one walkthrough row: that step's batch against the token budget, who waits.

The bar is the budget; each scheduled request fills its share (orange prefill, green decode) with
its letter and token count; the waiting beans stand to the right. A verify step (speculative
decoding) divides a request's share into its token cells and strikes the rejected drafts through;
in a multi-instance run the GPU is named on the right, and an arrow leaves the bar when a
request's KV moves to the decode GPU after this step.
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.defs import STRIP_SIZE
from pipeline.draw.filters import shared_filter
from pipeline.draw.palette import TINT_OPACITY, colour
from pipeline.fields.serving.scenes.common import budget, engine, phase

WIDTH, HEIGHT = STRIP_SIZE  # the shared "s" wobble filters are sized for it
INSET = 4.0
BAR_X0, BAR_X1 = 58.0, 300.0
BAR_Y, BAR_H = 18.0, 28.0
WAIT_X0 = 322.0
BEAN_PITCH = 30.0
MAX_WAIT = 3
LABEL_SIZE = 13.0
INSTANCE_WORDS = {"zh": {"prefill": "预填 GPU", "decode": "解码 GPU", "gpu": "GPU"},
                  "en": {"prefill": "prefill GPU", "decode": "decode GPU", "gpu": "GPU"}}


def instance_label(instance: str, lang: str) -> str:
    """`prefill-0` → the prefill GPU's name, `1` → GPU 1 (as the walkthrough says it)."""
    words = INSTANCE_WORDS[lang]
    pool, _, number = instance.rpartition("-")
    if pool in ("prefill", "decode"):
        return words[pool] + ("" if number == "0" else f" {number}")
    return f"{words['gpu']} {instance}"


def _drafts(cv: Canvas, rid: str, x: float, w: float, n: int, drafts: int, accepted: int) -> None:
    """The verify step's cells: dividers between tokens, a slash through each rejected draft
    (in the lower half, clear of the label)."""
    cell = w / n
    rng = cv.rng(f"drafts-{rid}")
    dividers = "".join(rough.line(rng, (x + j * cell, BAR_Y + 3), (x + j * cell, BAR_Y + BAR_H - 3),
                                  0.2, 1) for j in range(1, n))
    cv.stroke(dividers, colour("idle"), width=0.8)
    slashes = "".join(
        rough.line(rng, (x + (n - drafts + j) * cell + 2, BAR_Y + BAR_H - 2),
                   (x + (n - drafts + j + 1) * cell - 2, BAR_Y + BAR_H / 2 + 3), 0.2, 1)
        for j in range(accepted, drafts)
    )
    if slashes:
        cv.stroke(slashes, width=1.6)


def _strip_canvas(
    trace: TraceView, step_index: int, kind: str, lang: str
) -> tuple[StepView, str, Canvas]:
    """The step a row draws, its element id (`kind`-scenario-variant-step) and its canvas."""
    step = trace.step(step_index)
    if step is None:
        raise KeyError(f"the trace has no step {step_index}")
    scen = trace.scenario
    sid = (f"{kind}-{scen.id if scen.id is not None else 'sim'}-"
           f"{scen.variant if scen.variant is not None else 'x'}-{step_index}")
    cv = new_canvas(sid, WIDTH, HEIGHT, INSET, lang, f"walkthrough step {step_index}",
                    shared_filter=shared_filter("s", sid))
    return step, sid, cv


def draw_step_strip(trace: TraceView, step_index: int, *, lang: str,
                    focus: list[str]) -> str:
    step, sid, cv = _strip_canvas(trace, step_index, "strip", lang)
    cap = budget(trace) or 1
    unit = (BAR_X1 - BAR_X0) / cap
    cv.layout.place(f"第 {step_index} 步" if lang == "zh" else f"step {step_index}", x=8,
                    cy=BAR_Y + BAR_H / 2, role="label", size=15, anchor="start", floor=None)
    x = BAR_X0
    labels: list[tuple[str, float]] = []
    with cv.batch():  # segments of one kind share a path
        for rid, n in step.scheduled.items():
            w = n * unit
            verify = bool(step.drafts.get(rid))  # a verify step decodes, however many tokens
            kind = "new" if phase(trace, rid, step) == "prefill" and not verify else "running"
            seg = rough.rect_poly(x, BAR_Y, w, BAR_H)
            cv.shape(rough.jitter_poly(cv.rng(f"seg-{rid}"), seg, 0.6), fill=colour(kind),
                     opacity=TINT_OPACITY + 0.1, colour=colour(kind), width=1.4)
            label = rid if n == 1 else f"{rid}{n}"
            if fonts.measure(label, fonts.HAND_EN, LABEL_SIZE) <= w - 2:
                labels.append((label, x + w / 2))
            if step.drafts.get(rid):
                _drafts(cv, rid, x, w, n, step.drafts[rid], step.accepted.get(rid, 0))
            if rid in focus:
                cv.stroke(rough.line(cv.rng(f"focus-{rid}"), (x + 2, BAR_Y + BAR_H + 4),
                                     (x + w - 2, BAR_Y + BAR_H + 4), 0.6, 2), width=2.0)
            x += w
    if labels:  # who is in the batch and how many tokens each brings: one text, a tspan each
        cv.layout.place_row(labels, cy=BAR_Y + BAR_H / 2, role="label", size=LABEL_SIZE)
    # the budget: one bold single stroke (double strokes are kept for panel borders)
    cv.stroke(rough.rect(cv.rng("budget"), BAR_X0, BAR_Y - 3, BAR_X1 - BAR_X0, BAR_H + 6, 0.6, 1),
              width=2.0)
    wait_x = WAIT_X0
    if step.instance is not None:
        placed = cv.layout.place(instance_label(step.instance, lang), x=WAIT_X0, cy=BAR_Y + 6,
                                 role="label", size=LABEL_SIZE, anchor="start", floor=None)
        wait_x = placed.box.x1 + 4
    if step.handoff:  # the KV leaves this GPU for the decode pool
        cv.stroke(rough.arrow(cv.rng("handoff"), (BAR_X1 + 3, BAR_Y + BAR_H - 2),
                              (WAIT_X0 + 40, BAR_Y + BAR_H - 2), 0.4, 0, 6), width=1.6)
    room = max(0, int((WIDTH - INSET - wait_x) // BEAN_PITCH))
    for k, rid in enumerate(list(step.waiting)[:min(MAX_WAIT, room)]):
        cast.bean(cv, rid, wait_x + 14 + k * BEAN_PITCH, 30, "new", eid=f"wait-{rid}")
    used = step.total_tokens
    batch = ", ".join(f"{r} {n}" for r, n in step.scheduled.items())
    waiting = ", ".join(step.waiting) or ("无" if lang == "zh" else "none")
    if lang == "zh":
        desc = f"第 {step_index} 步：{batch}（共 {used}/{cap} 个 token），等待：{waiting}。"
        title = f"第 {step_index} 步"
    else:
        desc = f"Step {step_index}: {batch} ({used}/{cap} tokens); waiting: {waiting}."
        title = f"Step {step_index}"
    desc += _extra_desc(step, lang)
    return cv.svg(css_class="step-strip", element_id=sid, title=title, desc=desc)


BLOCK_CELLS = 16  # pool cells a block strip draws across the bar; more free ones are counted


def draw_block_strip(trace: TraceView, step_index: int, *, lang: str, focus: list[str]) -> str:
    """One walkthrough row for a memory concept: the KV pool after that step, block by block
    (the owner's letter in each held block; blue when a cached prefix block is shared, labelled
    with all its holders; red dashed where a preemption freed them), the free count, who waits.
    With block tables each block keeps its place in the pool from row to row.
    Drawn from the same cells as the kv_blocks scene, so a row and the card's panel agree."""
    from pipeline.fields.serving.scenes.kv_blocks import pool_cells

    step, sid, cv = _strip_canvas(trace, step_index, "blocks", lang)
    cv.layout.place(f"第 {step_index} 步" if lang == "zh" else f"step {step_index}", x=8,
                    cy=BAR_Y + BAR_H / 2, role="label", size=15, anchor="start", floor=None)
    bs = engine(trace).block_size
    cells = pool_cells(trace, step, None, bs, BLOCK_CELLS)
    drawn = cells[:BLOCK_CELLS]
    pitch = (BAR_X1 - BAR_X0) / BLOCK_CELLS
    labels: list[tuple[str, float]] = []
    with cv.batch():
        for k, (owner, kind, _filled, _reserved, _pos) in enumerate(drawn):
            x = BAR_X0 + k * pitch
            box = rough.jitter_poly(cv.rng(f"blk-{k}"), rough.rect_poly(x + 1, BAR_Y, pitch - 2, BAR_H), 0.5)
            if kind == "free":
                cv.shape(box, colour=colour("idle"), width=1.0)
            elif kind == "freed":
                cv.shape(box, colour=colour("freed"), width=1.4, dashed=True)
            else:
                tone = "stored" if kind == "stored" else "running"
                cv.shape(box, fill=colour(tone), opacity=TINT_OPACITY + 0.1, colour=colour(tone),
                         width=1.4)
            words = (owner, f"{owner[0]}+") if owner else ()
            fitting = [w for w in words if fonts.measure(w, fonts.HAND_EN, LABEL_SIZE) <= pitch - 3]
            if fitting:  # a shared block too narrow for all its holders: the first, and "+"
                labels.append((fitting[0], x + pitch / 2))
            if owner in focus and kind != "free":
                cv.stroke(rough.line(cv.rng(f"focus-{k}"), (x + 2, BAR_Y + BAR_H + 4),
                                     (x + pitch - 2, BAR_Y + BAR_H + 4), 0.6, 2), width=2.0)
    if labels:
        cv.layout.place_row(labels, cy=BAR_Y + BAR_H / 2, role="label", size=LABEL_SIZE)
    free = step.free_blocks
    cv.layout.place(f"空 {free}" if lang == "zh" else f"{free} free", x=WAIT_X0 - 16,
                    cy=BAR_Y + BAR_H / 2, role="label", size=LABEL_SIZE, anchor="start",
                    floor=None)
    for k, rid in enumerate(list(step.waiting)[:2]):
        state = "freed" if rid in step.preempted else "new"
        cast.bean(cv, rid, WAIT_X0 + 40 + k * BEAN_PITCH, 30, state, eid=f"wait-{rid}")
    total = engine(trace).num_blocks
    held = ", ".join(f"{r} {n}" for r, n in step.blocks.items()) or ("无" if lang == "zh" else "none")
    waiting = ", ".join(step.waiting) or ("无" if lang == "zh" else "none")
    if lang == "zh":
        desc = (f"第 {step_index} 步后的 KV 块（共 {total} 块，每块 {bs} 个 token）：{held}；"
                f"空 {free} 块；等待：{waiting}。")
        title = f"第 {step_index} 步"
    else:
        desc = (f"KV blocks after step {step_index} ({total} blocks of {bs} tokens): {held}; "
                f"{free} free; waiting: {waiting}.")
        title = f"Step {step_index}"
    if step.preempted:
        who = ", ".join(step.preempted)
        desc += f"{who} 被抢占，块被收回。" if lang == "zh" else f" {who} preempted, its blocks freed."
    return cv.svg(css_class="step-strip", element_id=sid, title=title, desc=desc)


def _extra_desc(step: StepView, lang: str) -> str:
    """The strip's speculative, instance and hand-off facts, in words."""
    zh = lang == "zh"
    out = []
    for rid, k in step.drafts.items():
        a = step.accepted.get(rid, 0)
        out.append(f"{rid} 验证 {k} 个草稿，接受 {a} 个、划掉 {k - a} 个" if zh
                   else f"{rid}: {k} drafts, {a} accepted, {k - a} rejected")
    if step.instance is not None:
        name = instance_label(step.instance, lang)
        out.append(f"在{name}上" if zh else f"on the {name}" if "-" in step.instance
                   else f"on {name}")
    if step.handoff:
        who = "、".join(step.handoff) if zh else ", ".join(step.handoff)
        out.append(f"{who} 的 KV 搬去解码 GPU" if zh else f"{who}: KV moves to the decode GPU")
    if not out:
        return ""
    return ("；".join(out) + "。") if zh else (" " + "; ".join(out) + ".")
