"""The cast: A-D request beans with faces, the GPU chip, the scheduler clerk, the KV shelf.

Every character is drawn at one fixed size (P12: same cast everywhere) and coloured by its state
through the palette; expressions follow the state (happy running, surprised new, sleepy idle,
worried freed: put out, coming back). The letter on a bean is a `<text>` placed through the canvas's layout.
"""

from __future__ import annotations

import math

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import BEAN_INK, FAINT, INK, PAPER, TINT_OPACITY, colour, tint
from pipeline.draw.svg import num

BEAN_W, BEAN_H = 26.0, 32.0
BEAN_LETTER_SIZE = 14.0
ICON_ROUGHNESS = 0.6
FOCUS_PAD = 7.0
GPU_SIZE = 54.0
CLERK_H = 62.0


def bean_outline(cx: float, cy: float) -> list[tuple[float, float]]:
    """A bean: a little narrower at the top, the bottom slightly flattened."""
    hw, hh = BEAN_W / 2, BEAN_H / 2
    return [
        (cx, cy - hh),
        (cx + hw * 0.78, cy - hh * 0.72),
        (cx + hw, cy),
        (cx + hw * 0.86, cy + hh * 0.72),
        (cx, cy + hh),
        (cx - hw * 0.86, cy + hh * 0.72),
        (cx - hw, cy),
        (cx - hw * 0.78, cy - hh * 0.72),
    ]


def _face(cv: Canvas, eid: str, cx: float, cy: float, state: str) -> None:
    """Eyes and mouth in the bean ink (dark on the bright chalk bodies of the dark theme)."""
    ey = cy - 8.5
    rng = cv.rng(f"{eid}/face")

    def pen(d: str, width: float) -> None:
        cv.stroke(d, BEAN_INK, width=width)

    if state == "freed":
        # put out, not gone: worried (eyes, brows tilted up in the middle, a frown); X eyes
        # read as dead to readers, and a preempted request comes back
        for ex, side in ((cx - 5, -1), (cx + 5, 1)):
            cv.dot(ex, ey + 0.6, 1.5, BEAN_INK)
            pen(rough.line(rng, (ex - 2.4 * side, ey - 3.4), (ex + 1.8 * side, ey - 2.2), 0.1, 1),
                1.1)
        pen(rough.curve(rng, [(cx - 4, cy - 1.6), (cx, cy - 4.2), (cx + 4, cy - 1.6)], 0.1, 1),
            1.2)
        return
    if state == "idle":
        for ex in (cx - 5, cx + 5):
            pen(rough.curve(rng, [(ex - 2.2, ey), (ex, ey + 1.3), (ex + 2.2, ey)], 0.1, 1), 1.2)
        pen(rough.line(rng, (cx - 2.5, cy - 3), (cx + 2.5, cy - 3), 0.2, 1), 1.2)
        return
    eye_r = 2.0 if state == "new" else 1.6
    cv.dot(cx - 5, ey, eye_r, BEAN_INK)
    cv.dot(cx + 5, ey, eye_r, BEAN_INK)
    if state == "new":
        pen(rough.ellipse(rng, cx, cy - 2.8, 1.9, 2.2, 0.1, 1), 1.2)
    elif state == "running":
        pen(rough.curve(rng, [(cx - 4.5, cy - 4), (cx, cy - 1), (cx + 4.5, cy - 4)], 0.1, 1), 1.3)
    else:  # stored: calm, a small contented line
        pen(rough.curve(rng, [(cx - 3, cy - 3), (cx, cy - 2), (cx + 3, cy - 3)], 0.1, 1), 1.2)


def symbol_id(name: str) -> str:
    """The page-wide id of a cast drawing defined once in the shared defs (see defs.py)."""
    return f"tj-{name}"


def bean(
    cv: Canvas,
    letter: str,
    cx: float,
    cy: float,
    state: str,
    *,
    eid: str | None = None,
    focus: bool = False,
) -> None:
    """Draw request `letter` as a bean centred on (cx, cy) in `state`: the body is a `<use>` of
    the page's one bean per state (P12: same cast everywhere), the letter a text on top."""
    eid = eid or f"bean-{letter}-{num(cx)}-{num(cy)}"
    cv.use(symbol_id(f"bean-{state}"), cx, cy)
    cv.layout.place(
        letter,
        x=cx,
        cy=cy + 6.5,
        role="name",
        size=BEAN_LETTER_SIZE,
        floor=None,
        max_width=BEAN_W,
        fill=BEAN_INK,
    )
    if focus:
        focus_ring(cv, f"{eid}/focus", cx, cy + 2, BEAN_W / 2 + FOCUS_PAD, BEAN_H / 2 + FOCUS_PAD)


def bean_body(cv: Canvas, cx: float, cy: float, state: str, eid: str) -> None:
    """The bean's shapes (outline, tint, feet, face): drawn once per state into the defs."""
    rng = cv.rng(eid)
    pts = bean_outline(cx, cy)
    cv.shape(
        rough.blob(rng, pts, ICON_ROUGHNESS, 1),
        fill=tint(state),
        colour=colour("freed") if state == "freed" else INK,
        width=1.6,
        dashed=state == "freed",
    )
    # feet: two short strokes make the bean stand like a character, not a token
    for fx in (cx - 5, cx + 5):
        cv.stroke(
            rough.line(
                rng,
                (fx, cy + BEAN_H / 2 - 1),
                (fx + (1 if fx > cx else -1), cy + BEAN_H / 2 + 4),
                0.3,
                1,
            ),
            width=1.4,
        )
    _face(cv, eid, cx, cy, state)
    if state == "idle":
        cv.stroke(
            rough.line(rng, (cx + 9, cy - 17), (cx + 13, cy - 17), 0.2, 1)
            + rough.line(rng, (cx + 13, cy - 17), (cx + 9, cy - 13), 0.2, 1)
            + rough.line(rng, (cx + 9, cy - 13), (cx + 13, cy - 13), 0.2, 1),
            width=1.0,
        )


def focus_ring(cv: Canvas, eid: str, cx: float, cy: float, rx: float, ry: float) -> None:
    """A quick hand-drawn loop around something the caption is about."""
    rng = cv.rng(eid)
    start = -math.pi / 2 - 0.5
    pts = [
        (cx + rx * math.cos(start + k * 0.62), cy + ry * math.sin(start + k * 0.62))
        for k in range(12)
    ]  # a bit more than a full turn: the loop overshoots its start
    cv.stroke(rough.curve(rng, pts, 1.0, 1), width=1.5)


def gpu(
    cv: Canvas, cx: float, cy: float, *, busy: bool, eid: str = "gpu", label: str = "GPU"
) -> None:
    """The GPU (a `<use>` of the page's chip, busy or idle) with its label (none: "")."""
    cv.use(symbol_id("gpu-busy" if busy else "gpu-idle"), cx, cy)
    if label:
        cv.layout.place(
            label, x=cx, cy=cy + 13, role="name", size=14, floor=None, max_width=GPU_SIZE - 8
        )


def gpu_body(cv: Canvas, cx: float, cy: float, *, busy: bool, eid: str) -> None:
    """The GPU: a square chip with pins, a face (busy = determined, idle = asleep)."""
    rng = cv.rng(eid)
    s = GPU_SIZE
    x, y = cx - s / 2, cy - s / 2
    if not busy:
        cv.fill(
            rough.smooth_closed(rough.rounded_points(x, y, s, s, 6)), colour("idle"), TINT_OPACITY
        )
    else:
        cv.fill(rough.smooth_closed(rough.rounded_points(x, y, s, s, 6)), PAPER)
    cv.stroke(rough.rounded_rect(rng, x, y, s, s, 6, 1.0), width=1.8)
    pins = ""
    for k in range(4):
        off = s * (0.2 + 0.2 * k)
        pins += rough.line(rng, (x - 7, y + off), (x, y + off), 0.3, 1)
        pins += rough.line(rng, (x + s, y + off), (x + s + 7, y + off), 0.3, 1)
        pins += rough.line(rng, (x + off, y - 7), (x + off, y), 0.3, 1)
        pins += rough.line(rng, (x + off, y + s), (x + off, y + s + 7), 0.3, 1)
    cv.stroke(pins, width=1.6)
    cv.stroke(rough.rounded_rect(rng, x + 7, y + 7, s - 14, s - 14, 3, 0.4, 1), FAINT, width=1.0)
    ey = cy - 9
    if busy:
        cv.dot(cx - 8, ey, 2.2)
        cv.dot(cx + 8, ey, 2.2)
        cv.stroke(
            rough.line(rng, (cx - 13, ey - 6), (cx - 4, ey - 4), 0.2, 1)
            + rough.line(rng, (cx + 13, ey - 6), (cx + 4, ey - 4), 0.2, 1),
            width=1.4,
        )
        cv.stroke(
            rough.curve(rng, [(cx - 6, cy - 2), (cx, cy + 1.5), (cx + 6, cy - 2)], 0.1, 1),
            width=1.5,
        )
    else:
        for ex in (cx - 8, cx + 8):
            cv.stroke(
                rough.curve(rng, [(ex - 3, ey), (ex, ey + 1.8), (ex + 3, ey)], 0.1, 1), width=1.4
            )
        cv.stroke(rough.line(rng, (cx - 3, cy - 1), (cx + 3, cy - 1), 0.2, 1), width=1.4)


def clerk(cv: Canvas, cx: float, cy: float, *, eid: str = "clerk") -> None:
    """The scheduler (a `<use>` of the page's clerk); (cx, cy) = chest."""
    cv.use(symbol_id("clerk"), cx, cy)


def clerk_body(cv: Canvas, cx: float, cy: float, eid: str) -> None:
    """The scheduler: a little clerk with a round head, a cap and a clipboard; (cx, cy) = chest."""
    rng = cv.rng(eid)
    head_y = cy - 22
    cv.fill(rough.smooth_closed(rough.ellipse_points(cx, head_y, 11, 11)), PAPER)
    cv.stroke(rough.ellipse(rng, cx, head_y, 11, 11, ICON_ROUGHNESS), width=1.6)
    cv.stroke(
        rough.polyline(
            rng,
            [
                (cx - 11, head_y - 5),
                (cx - 6, head_y - 13),
                (cx + 7, head_y - 13),
                (cx + 11, head_y - 5),
            ],
            0.4,
            False,
            1,
        )
        + rough.line(rng, (cx - 13, head_y - 5), (cx + 16, head_y - 5), 0.4, 1),
        width=1.6,
    )
    cv.dot(cx - 4, head_y, 1.6)
    cv.dot(cx + 4, head_y, 1.6)
    cv.stroke(
        rough.curve(rng, [(cx - 3, head_y + 5), (cx, head_y + 6.5), (cx + 3, head_y + 5)], 0.1, 1),
        width=1.2,
    )
    body = [(cx - 9, cy - 10), (cx + 9, cy - 10), (cx + 14, cy + 22), (cx - 14, cy + 22)]
    cv.fill(rough.smooth_closed(body), PAPER)
    cv.stroke(rough.polyline(rng, body, ICON_ROUGHNESS, True), width=1.6)
    cv.stroke(
        rough.line(rng, (cx - 6, cy + 22), (cx - 7, cy + 32), 0.3, 1)
        + rough.line(rng, (cx + 6, cy + 22), (cx + 7, cy + 32), 0.3, 1),
        width=1.6,
    )
    # clipboard held in front, with three checklist lines
    bx, by = cx + 4, cy - 4
    cv.fill(rough.smooth_closed(rough.rect_poly(bx, by, 16, 20)), PAPER)
    cv.stroke(rough.rect(rng, bx, by, 16, 20, 0.4), width=1.4)
    cv.stroke(
        "".join(
            rough.line(rng, (bx + 3, by + 6 + 4.5 * k), (bx + 13, by + 6 + 4.5 * k), 0.2, 1)
            for k in range(3)
        ),
        width=1.0,
    )
    cv.stroke(rough.line(rng, (cx - 8, cy - 4), (bx + 2, by + 10), 0.3, 1), width=1.4)


def shelf(
    cv: Canvas,
    x: float,
    y: float,
    cols: int,
    rows: int,
    cell: float,
    states: list[str | None],
    *,
    eid: str = "shelf",
) -> None:
    """The KV cache as a little shelf of boxes; `states[i]` tints box i (None = empty)."""
    rng = cv.rng(eid)
    w, h = cols * cell, rows * cell
    cv.stroke(rough.rect(rng, x - 3, y - 3, w + 6, h + 6, 0.8), width=1.8)
    cv.stroke(
        rough.line(rng, (x - 1, y + h + 3), (x - 3, y + h + 10), 0.3, 1)
        + rough.line(rng, (x + w + 1, y + h + 3), (x + w + 3, y + h + 10), 0.3, 1),
        width=1.6,
    )
    for i in range(cols * rows):
        cx, cy = x + (i % cols) * cell, y + (i // cols) * cell
        state = states[i] if i < len(states) else None
        if state:
            cv.fill(
                rough.smooth_closed(rough.rect_poly(cx + 2, cy + 2, cell - 4, cell - 4)),
                colour(state),
                TINT_OPACITY + 0.15,
            )
        cv.stroke(
            rough.rect(rng, cx + 2, cy + 2, cell - 4, cell - 4, 0.3, 1),
            colour(state) if state else colour("idle"),
            width=1.1,
            dashed=state == "freed",
        )
