"""flow: things moving left to right through `stages`, drawn as one pipe whose width at each
stage is that stage's rate, on one scale: the narrowest stage (the slowest) is the bottleneck,
tagged with an arrow. When an `arrival` rate is declared it enters from the left as an orange
arrow (new, arriving: P14); if it is faster than the bottleneck, a pile of orange arrivals
stands in front of the bottleneck with the words "queue grows".

Stages are ink (neutral): a stage is not a state. Each stage's label and rate stand under it.
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import colour, tint
from pipeline.draw.scene import SCENE_TOP, SCENE_X0, SCENE_X1, SCENE_Y1, SceneContext, SceneResult
from pipeline.fields.general.example import QuantityView
from pipeline.fields.general.scenes.common import (
    LABEL_SIZE,
    SMALL,
    amount,
    bar_length,
    fitted_height,
    neutral_bar,
    non_negative,
    refuse,
    role_quantities,
    text_width,
)

KIND = "flow"
MAX_STAGES = 5
ROW_A = SCENE_TOP + 9  # the arrival's words, the queue's words
ROW_B = ROW_A + 22  # the bottleneck's tag (each may take the other's row)
PIPE_CY = 106.0
MAX_H = 44.0
STUB_X0, STUB_X1 = SCENE_X0 + 2, SCENE_X0 + 52  # the arrival arrow, before the pipe
PIPE_X1 = SCENE_X1 - 14  # the exit arrow after it
BELOW = PIPE_CY + MAX_H / 2 + 6
TOKEN_R = 5.0
MAX_TOKENS = 5
STAGE_SIZE = 15.0


def _token(cv: Canvas, eid: str, x: float, y: float) -> None:
    """One waiting arrival: a small disc in the cast's solid "new" tint (a thin tint of orange
    turns brown on the dark board), outlined orange; the pipe's lines stay behind it."""
    cv.shape(
        rough.ellipse(cv.rng(eid), x, y, TOKEN_R, TOKEN_R, 0.3, 1),
        fill=tint("new"),
        colour=colour("new"),
        width=1.3,
    )


def _queue(cv: Canvas, ctx: SceneContext, right: float, room: float) -> None:
    """A line of waiting arrivals on the pipe's axis, ending at `right` (the bottleneck's
    mouth) and reaching back `room` px at most, its words above it joined by a pen line."""
    pitch = 2 * TOKEN_R + 2
    count = max(2, min(MAX_TOKENS, int((room - 4) // pitch)))
    first = right - 3 - TOKEN_R - (count - 1) * pitch
    for k in range(count):
        _token(cv, f"token-{k}", first + k * pitch, PIPE_CY)
    cx = first + (count - 1) * pitch / 2
    half = text_width(ctx.word("queue"), ctx.lang, SMALL + 0.5) / 2
    x = min(max(cx, SCENE_X0 + half), SCENE_X1 - half)
    placed = cv.layout.place(
        ctx.word("queue"),
        x=x,
        cy=ROW_B,
        role="label",
        size=SMALL + 0.5,
        floor=None,
        alts=[(x, ROW_A)],
    )
    cv.stroke(
        rough.line(
            cv.rng("queue-leader"), (cx, placed.box.y1 + 1), (cx, PIPE_CY - TOKEN_R - 3), 0.3, 1
        ),
        width=1.1,
    )
    # which way it grows: back up the pipe, against the flow
    cv.stroke(
        rough.arrow(
            cv.rng("queue-grows"),
            (first - TOKEN_R - 2, PIPE_CY),
            (first - TOKEN_R - 14, PIPE_CY),
            0.3,
            0,
            4,
        ),
        colour("new"),
        width=1.3,
    )


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    stages = role_quantities(cv, ctx, KIND, "stages")[:MAX_STAGES]
    arrivals = role_quantities(cv, ctx, KIND, "arrival", required=False)[:1]
    if len(stages) < 2:
        raise refuse(cv, KIND, "needs at least two stages")
    non_negative(cv, KIND, [*stages, *arrivals])
    x0 = STUB_X1 if arrivals else SCENE_X0 + 4
    width = (PIPE_X1 - x0) / len(stages)
    top = max(q.value for q in [*stages, *arrivals])
    scale = MAX_H / top if top > 0 else 0.0
    slowest = min(range(len(stages)), key=lambda k: (stages[k].value, k))
    marked = any(q.value > stages[slowest].value for q in stages)
    for k, q in enumerate(stages):
        h = bar_length(q.value, scale)
        x = x0 + k * width
        if h > 0:
            neutral_bar(
                cv,
                f"stage-{k}",
                x,
                PIPE_CY - h / 2,
                width,
                h,
                rough.HACHURE_ANGLE if k % 2 == 0 else rough.CROSS_ANGLE,
            )
        else:  # a stage that moves nothing: a closed gate
            cv.stroke(
                rough.line(cv.rng(f"gate-{k}"), (x, PIPE_CY - 8), (x, PIPE_CY + 8), 0.3), width=2.0
            )
        if k == slowest and marked:
            cv.stroke(rough.rect(cv.rng("neck"), x, PIPE_CY - h / 2, width, h, 0.4, 1), width=2.6)
        _stage_words(cv, ctx, q, x, width)
    exit_from = x0 + len(stages) * width
    cv.stroke(
        rough.arrow(cv.rng("exit"), (exit_from + 2, PIPE_CY), (SCENE_X1, PIPE_CY), 0.4, 0, 6),
        width=1.6,
    )
    queue = bool(arrivals) and arrivals[0].value > stages[slowest].value
    if arrivals:
        a = arrivals[0]
        cv.stroke(
            rough.arrow(cv.rng("arrive"), (STUB_X0, PIPE_CY), (x0 - 3, PIPE_CY), 0.4, 0, 7),
            colour("new"),
            width=2.2,
        )
        cv.layout.place(
            f"{a.label} {amount(a)}",
            x=STUB_X0,
            cy=ROW_A,
            role="label",
            size=LABEL_SIZE,
            anchor="start",
            alts=[(STUB_X0, ROW_B)],
            max_width=SCENE_X1 - STUB_X0,
        )
    if marked:
        nx = x0 + slowest * width + width / 2
        h = bar_length(stages[slowest].value, scale)
        placed = cv.layout.place(
            ctx.word("bottleneck"),
            x=nx,
            cy=ROW_B,
            role="label",
            size=SMALL + 0.5,
            floor=None,
            alts=[(nx, ROW_A)],
        )
        cv.stroke(
            rough.arrow(
                cv.rng("neck-tag"), (nx, placed.box.y1 + 1), (nx, PIPE_CY - h / 2 - 3), 0.3, 0, 5
            ),
            width=1.2,
        )
    if queue:
        _queue(cv, ctx, x0 + slowest * width, (width if slowest else x0 - STUB_X0) - 16)
    return SceneResult(_desc(ctx, stages, slowest if marked else None, arrivals, queue), True)


def _stage_words(cv: Canvas, ctx: SceneContext, q: QuantityView, x: float, width: float) -> None:
    """The stage's label, and its rate under it, in its own column below the pipe."""
    room = width - 12  # air between neighbouring columns
    h = fitted_height(cv, q.label, ctx.lang, STAGE_SIZE, room, 2)
    label = cv.layout.place(
        q.label,
        x=x + width / 2,
        cy=BELOW + h / 2,
        role="label",
        size=STAGE_SIZE,
        max_width=room,
        max_lines=2,
    )
    rate = amount(q)
    h = fitted_height(cv, rate, ctx.lang, STAGE_SIZE, room, 2, shrink=False)
    placed = cv.layout.place(
        rate,
        x=x + width / 2,
        cy=label.box.y1 + 2 + h / 2,
        role="label",
        size=STAGE_SIZE,
        max_width=room,
        max_lines=2,
        floor=None,
    )
    if placed.box.y1 > SCENE_Y1:
        raise refuse(
            cv,
            KIND,
            f"has no room under stage '{q.name}' for '{q.label}' and "
            f"'{rate}': use fewer stages or shorter labels",
        )


def _desc(
    ctx: SceneContext,
    stages: list[QuantityView],
    slowest: int | None,
    arrivals: list[QuantityView],
    queue: bool,
) -> str:
    zh = ctx.lang == "zh"
    listed = ("、" if zh else ", ").join(f"{q.label} {amount(q)}" for q in stages)
    out = f"流程图：依次经过 {listed}" if zh else f"A flow through {listed}"
    if slowest is not None:
        b = stages[slowest]
        out += (
            f"；最慢的 {b.label} 是瓶颈" if zh else f"; the slowest, {b.label}, is the bottleneck"
        )
    if arrivals:
        a = arrivals[0]
        if zh:
            out += f"；{a.label} {amount(a)}" + (
                "，比瓶颈快，队伍越排越长" if queue else "，跟得上"
            )
        else:
            out += f"; {a.label} {amount(a)}" + (
                ", faster than the bottleneck, so a queue grows"
                if queue
                else ", which it keeps up with"
            )
    return out + ("。" if zh else ".")
