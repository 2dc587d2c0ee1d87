"""queue: the waiting line, the scheduler clerk asking its three questions, the batch, the GPU.

The step shown is the first one with someone waiting (else the first step); each question gets a
hand-drawn tick or cross computed from that step: running first, budget left, KV blocks free.
"""

from __future__ import annotations

import math

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import FAINT, colour
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    budget,
    engine,
    phase,
)

WAIT_Y = 84.0
CLERK_X, CLERK_Y = 148.0, 88.0
Q_X, Q_Y0, Q_PITCH = 184.0, 56.0, 25.0
BATCH_Y = 168.0
BEAN_PITCH = 32.0
GPU_X, GPU_Y = 344.0, 160.0
MAX_WAIT = 3
MAX_BATCH = 6
Q_PITCH_TIGHT = 22.0  # four questions (with the slot limit) still clear the GPU below
SLOT_W, SLOT_H = 30.0, 44.0


def pick_step(trace: TraceView) -> StepView:
    return next((s for s in trace.steps if s.waiting), trace.steps[0])


def mark(cv: Canvas, eid: str, x: float, y: float, ok: bool) -> None:
    """A hand-drawn tick (ok) or cross, in ink: a check, not a state colour."""
    rng = cv.rng(eid)
    if ok:
        cv.stroke(
            rough.polyline(rng, [(x - 5, y), (x - 1.5, y + 4), (x + 6, y - 6)], 0.3, False, 2),
            width=1.8,
        )
    else:
        cv.stroke(
            rough.line(rng, (x - 5, y - 5), (x + 5, y + 5), 0.3, 1)
            + rough.line(rng, (x + 5, y - 5), (x - 5, y + 5), 0.3, 1),
            width=1.8,
        )


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    step = pick_step(trace)
    cap = budget(trace)
    used = step.total_tokens
    left = cap - used
    bs = engine(trace).block_size
    waiting = list(step.waiting)
    head = waiting[0] if waiting else None
    need = math.ceil(step.tokens.get(head, 0) / bs) if head else 0
    free = step.free_blocks
    step_word = f"第 {step.index} 步" if ctx.lang == "zh" else f"step {step.index}"
    cv.layout.place(
        step_word,
        x=SCENE_X0,
        cy=KEY_CY,
        role="label",
        size=SMALL_SIZE,
        anchor="start",
        floor=None,
    )
    cv.layout.place(
        ctx.word("wait_q"), x=62, cy=WAIT_Y - 30, role="label", size=SMALL_SIZE, floor=None
    )
    for k, rid in enumerate(waiting[:MAX_WAIT]):
        cast.bean(
            cv, rid, 30 + k * BEAN_PITCH, WAIT_Y, "new", eid=f"wait-{rid}", focus=rid in ctx.focus
        )
    if not waiting:
        cv.stroke(
            rough.line(cv.rng("empty-q"), (24, WAIT_Y + 16), (100, WAIT_Y + 16), 0.5, 1),
            colour("idle"),
            width=1.2,
        )
    cv.stroke(rough.arrow(cv.rng("q-to-clerk"), (106, WAIT_Y), (126, WAIT_Y), 0.5, 0, 6), width=1.4)
    cast.clerk(cv, CLERK_X, CLERK_Y)
    answers = [
        (ctx.word("q_running"), True, ""),
        (ctx.word("q_budget"), left > 0, f"{left}/{cap}"),
        (ctx.word("q_blocks"), not head or free >= need, f"{free}/{need}" if head else str(free)),
    ]
    seqs = engine(trace).max_num_seqs
    # A sequence-slot limit small enough to bind here is the fourth question (and drawn slots).
    slots = seqs if 0 < seqs <= MAX_BATCH else 0
    running = len(step.running)
    if slots:
        answers.append((ctx.word("q_slots"), running < slots, f"{running}/{slots}"))
    pitch = Q_PITCH_TIGHT if slots else Q_PITCH
    for i, (question, ok, figure) in enumerate(answers):
        cy = Q_Y0 + i * pitch
        mark(cv, f"mark-{i}", Q_X, cy, ok)
        text = f"{i + 1}. {question}" + (f"  {figure}" if figure else "")
        cv.layout.place(
            text,
            x=Q_X + 12,
            cy=cy,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            max_width=150,
        )
    batch = list(step.scheduled.items())[:MAX_BATCH]
    if slots:  # the engine's seats: a faint box per sequence slot, empty ones stay visible
        rng = cv.rng("slots")
        cv.stroke(
            "".join(
                rough.rounded_rect(
                    rng, 32 + k * BEAN_PITCH - SLOT_W / 2, BATCH_Y - 20, SLOT_W, SLOT_H, 6, 0.4, 1
                )
                for k in range(slots)
            ),
            FAINT,
            width=1.6,
        )
    batch_word = ctx.word("batch")
    if slots:
        batch_word += f"（最多 {slots} 个）" if ctx.lang == "zh" else f" (max {slots})"
    cv.layout.place(
        batch_word,
        x=SCENE_X0 + 4,
        cy=BATCH_Y - 30,
        role="label",
        size=SMALL_SIZE,
        anchor="start",
        floor=None,
    )
    for k, (rid, _n) in enumerate(batch):
        state = "new" if phase(trace, rid, step) == "prefill" else "running"
        cast.bean(
            cv,
            rid,
            32 + k * BEAN_PITCH,
            BATCH_Y,
            state,
            eid=f"batch-{rid}",
            focus=rid in ctx.focus and rid not in waiting,
        )
    end_x = 32 + len(batch) * BEAN_PITCH
    cv.stroke(
        rough.arrow(cv.rng("batch-to-gpu"), (end_x, BATCH_Y - 4), (GPU_X - 42, GPU_Y), 0.6, -6, 7),
        width=1.5,
    )
    cv.stroke(
        rough.arrow(
            cv.rng("clerk-to-batch"),
            (CLERK_X - 14, CLERK_Y + 34),
            (CLERK_X - 40, BATCH_Y - 26),
            0.6,
            4,
            6,
        ),
        width=1.4,
    )
    cast.gpu(cv, GPU_X, GPU_Y, busy=bool(batch))
    names = "".join(rid for rid, _ in batch)
    if ctx.lang == "zh":
        desc = (
            f"排队图：第 {step.index} 步，批里有 {names}（{used}/{cap} 个 token），"
            f"{'、'.join(waiting) or '没人'}在排队，空闲 KV 块 {free} 个"
            + (f"，序列空位 {running}/{slots}。" if slots else "。")
        )
    else:
        desc = (
            f"Queue at step {step.index}: the batch holds {names} ({used}/{cap} tokens), "
            f"{', '.join(waiting) or 'nobody'} waiting, {free} KV blocks free"
            + (f", sequence slots {running}/{slots}." if slots else ".")
        )
    return SceneResult(desc, True)
