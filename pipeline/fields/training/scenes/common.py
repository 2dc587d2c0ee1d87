"""What the training field's scenes share: their words in two languages, the look of a pipeline
action (forward, backward, idle) and of a memory part (weights, gradients, optimizer states,
activations), and small readers of the run's view.

Colours keep their page-wide meaning (P14): work in progress is green (a forward a light green
block, a backward the same green hatched), what a GPU keeps in memory is blue (gradients
hatched, optimizer states filled) beside the weights' pale ink cross-hatching, the activations of
micro-batches in flight green, idle grey, and what does not fit red dashed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import INK, PAPER, TINT_OPACITY, colour
from pipeline.draw.scene import (  # noqa: F401 - the training scenes read them from here
    KEY_CY,
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SCENE_Y1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
)
from pipeline.fields.training.values import clock, gb, number, seconds
from pipeline.fields.training.view import TrainingView

__all__ = ["clock", "gb", "number", "seconds"]

SWATCH = 11.0
TAG_LEFT = 300.0  # the 示意值 tag's left edge, roughly: words in the top strip stop before it
KEY_GAP = 8.0
# A forward lighter than a backward in both themes (the dark theme thickens tints of 0.3-0.5,
# so neither is one of those).
F_OPACITY, B_OPACITY = 0.22, 0.58
WEIGHTS_OPACITY = 0.5
ACTION_KINDS = ("F", "B", "idle")
# the schedules in the order the cards introduce them (a card compares neighbours), by name
SCHEDULES = {"gpipe": "GPipe", "1f1b": "1F1B", "interleaved_1f1b": "interleaved 1F1B"}
MEMORY_PARTS = ("params", "grads", "optimizer", "activations")

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        "F": "前向", "B": "反向", "idle": "空闲", "chunk2": "粗框：卡上第二段层", "gpu": "GPU {n}", "each_gpu": "每张 GPU",
        "params": "权重", "grads": "梯度", "optimizer": "优化器", "activations": "激活",
        "units": "单位时间", "s": "秒", "ms": "毫秒",
    },
    "en": {
        "F": "forward", "B": "backward", "idle": "idle", "chunk2": "bold edge: its 2nd chunk", "gpu": "GPU {n}", "each_gpu": "each GPU",
        "params": "weights", "grads": "gradients", "optimizer": "optimizer", "activations":
        "activations", "units": "time units", "s": "s", "ms": "ms",
    },
}


def unit_word(view: TrainingView, lang: str) -> str:
    """The run's clock in words: time units under the unit cost, else seconds."""
    return WORDS[lang]["units" if view.unit_cost else "s"]


def action_block(cv: Canvas, eid: str, kind: str, x: float, y: float, w: float, h: float,
                 later_chunk: bool = False) -> None:
    """One action's block: a forward light green, a backward green and hatched, idle grey
    hatching (drawn over the paper so a lane's idle hatching stops at the block); a block of a
    GPU's later chunk of layers (interleaved schedules) has a solid ink edge as well."""
    if later_chunk:
        # a solid ink edge round the whole block: a dashed inset was too faint to find on a
        # forward a few pixels wide (readers tr-r4, hf4)
        action_block(cv, eid, kind, x, y, w, h)
        cv.stroke(rough.rect(cv.rng(f"{eid}-chunk"), x, y, w, h, 0.2, 1), INK, width=1.6)
        return
    rng = cv.rng(eid)
    poly = rough.rect_poly(x, y, w, h)
    if kind == "idle":
        cv.stroke(rough.hachure(rng, poly, 4.0), colour("idle"), width=0.8)
        return
    cv.fill(poly_d(poly), PAPER)
    cv.fill(poly_d(poly), colour("running"), B_OPACITY if kind == "B" else F_OPACITY)
    if kind == "B" and w >= 3:
        cv.stroke(rough.hachure(rng, poly, 3.2), colour("running"), width=0.8)
    cv.stroke(rough.jitter_poly(rng, poly, 0.3), colour("running"), width=1.2)


def memory_part(cv: Canvas, eid: str, part: str, x: float, y: float, w: float, h: float) -> None:
    """One part of a GPU's memory stack (see the module docstring for the look)."""
    if h <= 0.2:
        return
    rng = cv.rng(eid)
    poly = rough.rect_poly(x, y, w, h)
    if part == "params":
        # cross-hatched: a pipeline lane's idle time is grey single hatching (reader tr-r4 took
        # the two for one thing)
        cv.stroke(rough.hachure(rng, poly, 4.0, cross=True), INK, width=0.8,
                  opacity=WEIGHTS_OPACITY)
    elif part == "grads":
        cv.fill(poly_d(poly), colour("stored"), 0.12)
        cv.stroke(rough.hachure(rng, poly, 3.5, angle=49.0), colour("stored"), width=0.9)
    elif part == "optimizer":
        cv.fill(poly_d(poly), colour("stored"), TINT_OPACITY + 0.15)
    else:
        cv.fill(poly_d(poly), colour("running"), TINT_OPACITY + 0.15)
    cv.stroke(rough.line(rng, (x, y), (x + w, y), 0.2, 1), INK, width=0.9)


def _swatch(cv: Canvas, kind: str, x: float, cy: float) -> None:
    if kind == "chunk2":
        action_block(cv, "key-chunk2", "F", x, cy - SWATCH / 2, SWATCH, SWATCH, later_chunk=True)
        return
    if kind in ACTION_KINDS:
        action_block(cv, f"key-{kind}", kind, x, cy - SWATCH / 2, SWATCH, SWATCH)
        if kind == "idle":
            cv.stroke(rough.rect(cv.rng("key-idle-box"), x, cy - SWATCH / 2, SWATCH, SWATCH,
                                 0.3, 1), colour("idle"), width=1.0)
        return
    memory_part(cv, f"key-{kind}", kind, x, cy - SWATCH / 2, SWATCH, SWATCH)
    cv.stroke(rough.rect(cv.rng(f"key-{kind}-box"), x, cy - SWATCH / 2, SWATCH, SWATCH, 0.3, 1),
              width=1.0)


def draw_key(cv: Canvas, lang: str, kinds: list[str], x0: float = SCENE_X0,
             cy: float = KEY_CY, short: Mapping[str, str] | None = None) -> float:
    """Swatch + word pairs left to right (`short` words replacing some); returns the x after
    the last."""
    x = x0
    for kind in kinds:
        _swatch(cv, kind, x, cy)
        word = (short or {}).get(kind, WORDS[lang][kind])
        placed = cv.layout.place(word, x=x + SWATCH + 3, cy=cy, role="label",
                                 size=SMALL_SIZE, anchor="start", floor=None)
        x = placed.box.x1 + KEY_GAP
    return x


def gpu_name(lang: str, rank: int) -> str:
    return WORDS[lang]["gpu"].format(n=rank)


def card_extent(ctx: SceneContext, pair: float, own: Callable[[TrainingView], float]) -> float:
    """The extent a scene draws to (a span, a step, a peak), the same on both panels: `pair`
    (the longer of the scenario's two variants) when the card draws one scenario, else the
    longer of the two runs the card actually draws (`Field.cross_partner`: a played model's
    card drew two memory pictures 2.4x apart)."""
    other = ctx.partner if isinstance(ctx.partner, TrainingView) else None
    mine = ctx.panel
    theirs = ctx.concept.fix if ctx.side == "trouble" else ctx.concept.trouble
    if other is None or theirs.scenario == mine.scenario:
        return pair
    return max(own(ctx.run), own(other))
