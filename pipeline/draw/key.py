"""The small colour key in a scene's top strip, and the 示意值 tag in the top-right corner.

A key swatch shows the same fill or outline the scene uses, so a reader decodes colours in place.
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.cast import symbol_id
from pipeline.draw.palette import INK, PAPER, TINT_OPACITY, colour
from pipeline.draw.scene import KEY_CY, SCENE_X0, SMALL_SIZE, SceneContext

SWATCH = 11.0
COPY_OFFSET = 3.5  # how far a duplicated block's second copy shows behind it
KEY_GAP = 8.0
TAG_SIZE = SMALL_SIZE
TAG_RIGHT = 384.0

KEY_WORDS = {
    "zh": {
        "new": "预填",
        "running": "解码",
        "waiting": "等待",
        "idle": "干等",
        "stored": "缓存",
        "freed": "释放",
        "reserved": "预留空位",
        "held": "已用",
        "copy": "重复的开头",
        "unused": "块内空位",
        "reused": "复用，不用算",
        "preempted": "被收回",
    },
    "en": {
        "new": "prefill",
        "running": "decode",
        "waiting": "waiting",
        "idle": "stuck",
        "stored": "cached",
        "freed": "freed",
        "reserved": "reserved",
        "held": "in use",
        "copy": "same prefix again",
        "unused": "unwritten slots",
        "reused": "reused, not computed",
        "preempted": "preempted",
    },
}
TAG_WORDS = {"zh": "示意值", "en": "illustrative"}
QUOTED_WORDS = {"zh": "引自原文", "en": "quoted"}  # a panel whose numbers are all the article's
# ... and one that writes a number computed from the article's alone (no source has it as
# written: a reader looked for 1,643.82 in the article under "quoted" and did not find it)
COMPUTED_WORDS = {"zh": "据原文算", "en": "from quotes"}
# ... and a chart whose numbers are the simulator's runs on named workloads, not small worked
# examples (readers took "illustrative" on the ruler for "small enough to check by hand")
SIMULATED_WORDS = {"zh": "模拟值", "en": "simulated"}
TAGS = {"illustrative": TAG_WORDS, "quoted": QUOTED_WORDS, "computed": COMPUTED_WORDS,
        "simulated": SIMULATED_WORDS}


SWATCH_KINDS = ("new", "running", "stored", "held", "copy", "waiting", "idle", "reserved",
                "unused", "freed", "reused", "preempted")


def swatch(cv: Canvas, kind: str, x: float, cy: float) -> None:
    """A key swatch: a `<use>` of the page's one swatch per kind (see defs.py)."""
    cv.use(symbol_id(f"swatch-{kind}"), x, cy)


def swatch_body(cv: Canvas, kind: str, x: float, cy: float, size: float = SWATCH) -> None:
    y = cy - size / 2
    rng = cv.rng(f"swatch-{kind}")
    poly = rough.rect_poly(x, y, size, size)
    if kind in ("new", "running", "stored", "held"):
        state = "running" if kind == "held" else kind
        cv.fill(poly_d(poly), colour(state), TINT_OPACITY + 0.1)
        cv.stroke(rough.rect(rng, x, y, size, size, 0.3, 1), colour(state), width=1.2)
    elif kind == "waiting":
        cv.stroke(rough.rect(rng, x, y + 2, size, size - 4, 0.3, 1), colour("idle"), width=1.1)
    elif kind in ("idle", "reserved", "unused"):
        cv.stroke(rough.hachure(rng, poly, 3.5), colour("idle"), width=0.9)
        cv.stroke(rough.rect(rng, x, y, size, size, 0.3, 1), colour("idle"), width=1.1)
    elif kind in ("freed", "reused"):
        cv.stroke(
            rough.rect(rng, x, y, size, size, 0.3, 1), colour("freed" if kind == "freed" else
                                                               "stored"), width=1.3, dashed=True
        )
    elif kind == "preempted":  # the timeline's evicted cell: dashed red, crossed out
        cv.stroke(rough.rect(rng, x, y, size, size, 0.3, 1), colour("freed"), width=1.3,
                  dashed=True)
        cv.stroke(rough.line(rng, (x + 2, y + 2), (x + size - 2, y + size - 2), 0.2, 1)
                  + rough.line(rng, (x + size - 2, y + 2), (x + 2, y + size - 2), 0.2, 1),
                  colour("freed"), width=1.0)
    elif kind == "copy":  # a block computed again that a cache would hold once: a second
        # copy stacked behind it (blue is the cache's, dashed is freed: reader li8 read both)
        cv.stroke(rough.rect(rng, x + COPY_OFFSET, y - COPY_OFFSET, size, size, 0.3, 1), INK,
                  width=1.3)
        cv.fill(poly_d(poly), PAPER)
        cv.fill(poly_d(poly), colour("running"), TINT_OPACITY + 0.1)
        cv.stroke(rough.rect(rng, x, y, size, size, 0.3, 1), colour("running"), width=1.3)


def draw_key(cv: Canvas, ctx: SceneContext, kinds: list[str], x0: float = SCENE_X0) -> float:
    """Swatch + word pairs left to right in the top strip; returns the x after the last."""
    x = x0
    for kind in kinds:
        swatch(cv, kind, x, KEY_CY)
        word = KEY_WORDS[ctx.lang][kind]
        placed = cv.layout.place(
            word,
            x=x + SWATCH + 3,
            cy=KEY_CY,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            floor=None,
        )
        x = placed.box.x1 + KEY_GAP
    return x


def draw_tag(cv: Canvas, lang: str, right: float = TAG_RIGHT, cy: float = KEY_CY,
             *, kind: str = "illustrative") -> None:
    """The diagram's tag (`TAGS`: 示意值 / illustrative; 引自原文 / quoted when every number it
    writes is an article's; 据原文算 / from quotes when some are computed from those alone;
    模拟值 / simulated for simulator runs on named workloads): small words in a dashed-free
    hand-drawn box."""
    placed = cv.layout.place(
        TAGS[kind][lang], x=right - 5, cy=cy, role="tag",
        size=TAG_SIZE, anchor="end", floor=None,
    )
    b = placed.box
    rng = cv.rng("tag")
    # a quick single-stroke box with softly cut corners (cheap: one short path)
    x0, y0, x1, y1, k = b.x0 - 4, b.y0 - 1, b.x1 + 4, b.y1 + 1, 2.5
    corners = [(x0 + k, y0), (x1 - k, y0), (x1, y0 + k), (x1, y1 - k), (x1 - k, y1),
               (x0 + k, y1), (x0, y1 - k), (x0, y0 + k)]
    cv.stroke(rough.jitter_poly(rng, corners, 0.4), width=1.1)
