"""Shared pieces of the per-request lane scenes (`slo`, `streaming`): one lane per cast member on
a common time scale, token dots, and the hand-drawn check and cross verdict marks.

The marks are shapes (the hand fonts have no check or cross glyphs); the lanes are drawn in the
cast's trace order, at most four (A, B, C and the newcomer D).
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.artifacts.trace import TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import FAINT, INK, PAPER, colour
from pipeline.draw.svg import element
from pipeline.fields.serving.scenes.common import SCENE_TOP, SceneContext

MAX_LANES = 4
LANE_PITCH = 33.0
LANE_Y0 = SCENE_TOP + 2.0
BEAN_XS = (24.0, 42.0)  # staggered: four beans in a column would touch
TRACK_X0 = 62.0
DOT_R = 3.6


@dataclass(frozen=True)
class TimeScale:
    """Time 0 .. `t1` onto x `x0` .. `x1`."""

    t1: float
    x0: float
    x1: float

    def x(self, t: float) -> float:
        return self.x0 + (t / (self.t1 or 1.0)) * (self.x1 - self.x0)


def lane_ids(trace: TraceView) -> list[str]:
    return list(trace.requests)[:MAX_LANES]


def lane_cy(i: int) -> float:
    return LANE_Y0 + LANE_PITCH * (i + 0.5)


def lane_bean(
    cv: Canvas, ctx: SceneContext, i: int, rid: str, cy: float, state: str
) -> None:
    x = BEAN_XS[i % len(BEAN_XS)]
    cast.bean(cv, rid, x, cy - 2, state, eid=f"lane-{rid}", focus=rid in ctx.focus)


def track(cv: Canvas, eid: str, x0: float, x1: float, cy: float) -> None:
    """The lane's faint guide line (the request's life runs along it)."""
    cv.stroke(rough.line(cv.rng(eid), (x0, cy), (x1, cy), 0.3, 1), FAINT, width=1.0)


def dot(cv: Canvas, eid: str, x: float, cy: float, kind: str, *, solid: bool = True) -> None:
    """One output token: a filled dot (seen), or a pencil-light ring (written, not yet seen)."""
    if solid:
        cv.dot(x, cy, DOT_R, colour(kind))
    else:
        # a plain circle (the ink group's wobble roughens it): many of them stay small
        cv.raw(element("circle", {"cx": x, "cy": cy, "r": DOT_R, "fill": PAPER,
                                  "stroke": colour(kind), "stroke-width": 1.1}))


def tick(cv: Canvas, eid: str, x: float, cy: float, kind: str, half: float = 11.0) -> None:
    """A deadline or arrival mark: a short upright stroke across the lane."""
    cv.stroke(rough.line(cv.rng(eid), (x, cy - half), (x, cy + half), 0.3, 1), colour(kind),
              width=2.0)


def check(cv: Canvas, eid: str, x: float, cy: float) -> None:
    """A hand-drawn check mark centred on (x, cy): meets."""
    cv.stroke(rough.curve(cv.rng(eid), [(x - 6, cy), (x - 1.5, cy + 5), (x + 7, cy - 7)], 0.4, 2),
              INK, width=2.2)


def cross(cv: Canvas, eid: str, x: float, cy: float) -> None:
    """A hand-drawn cross centred on (x, cy): misses."""
    rng = cv.rng(eid)
    cv.stroke(rough.line(rng, (x - 6, cy - 6), (x + 6, cy + 6), 0.4, 1)
              + rough.line(rng, (x + 6, cy - 6), (x - 6, cy + 6), 0.4, 1), INK, width=2.2)
