"""Seeded rough.js-style strokes: bowed double lines, wobbly ellipses and curves, hachure fills.

Each shape takes a `Rng` seeded from a stable element id, so the same input always draws the same
path. Functions return SVG path data (`d`), coordinates rounded to one decimal (Bézier control
points to whole-pixel offsets from their segment's start: `_control`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from pipeline.draw.svg import num

Point = tuple[float, float]

MODULUS = 2147483647  # Park-Miller generator, as rough.js uses
MULTIPLIER = 48271
MAX_OFFSET = 2.0  # how far (px at roughness 1) a stroke's ends may miss
BOWING = 1.0
ELLIPSE_POINTS = 9
HACHURE_GAP = 5.0
HACHURE_ANGLE = -41.0
CROSS_ANGLE = 49.0


class Rng:
    """A tiny deterministic generator seeded from a string id (never the global `random`)."""

    def __init__(self, seed_id: str):
        digest = hashlib.sha256(seed_id.encode("utf-8")).digest()
        self.state = int.from_bytes(digest[:8], "big") % (MODULUS - 1) + 1

    def next(self) -> float:
        self.state = (self.state * MULTIPLIER) % MODULUS
        return self.state / MODULUS

    def off(self, low: float, high: float, roughness: float) -> float:
        return roughness * (low + (high - low) * self.next())


def seed_int(seed_id: str, modulo: int) -> int:
    """A small stable integer from an id (e.g. an feTurbulence seed)."""
    return int(hashlib.sha256(seed_id.encode("utf-8")).hexdigest()[:8], 16) % modulo


def _pt(x: float, y: float) -> str:
    return f"{num(x)} {num(y)}"


def _control(start: Point, point: Point) -> Point:
    """A Bézier control point moved to a whole-pixel offset from its segment's start (the start
    as the path data has it, at one decimal). Control points are not on the stroke: moving each
    by at most half a pixel per axis moves the curve by at most 0.375 px per axis, under the
    wobble filter's own displacement (scale 6), and whole offsets print two characters shorter
    in the relative form the page uses (~13 KB of the example page's path data)."""
    sx, sy = round(start[0], 1), round(start[1], 1)
    return sx + round(point[0] - sx), sy + round(point[1] - sy)


def _line_pass(rng: Rng, p1: Point, p2: Point, roughness: float, move: bool) -> str:
    """One bowed cubic from p1 to p2 whose ends miss by up to `offset` (rough.js `_line`)."""
    (x1, y1), (x2, y2) = p1, p2
    length = math.hypot(x2 - x1, y2 - y1)
    gain = 1.0 if length < 200 else max(0.4, 1.233 - 0.00167 * length)
    offset = MAX_OFFSET
    if offset * offset * 100 > length * length:
        offset = length / 10
    half = offset / 2
    diverge = 0.2 + rng.next() * 0.2
    r = roughness * gain
    mid_x = BOWING * MAX_OFFSET * (y2 - y1) / 200 + rng.off(-half, half, r)
    mid_y = BOWING * MAX_OFFSET * (x1 - x2) / 200 + rng.off(-half, half, r)
    sx, sy = x1 + rng.off(-half, half, r), y1 + rng.off(-half, half, r)
    c1 = (
        mid_x + x1 + (x2 - x1) * diverge + rng.off(-half, half, r),
        mid_y + y1 + (y2 - y1) * diverge + rng.off(-half, half, r),
    )
    c2 = (
        mid_x + x1 + 2 * (x2 - x1) * diverge + rng.off(-half, half, r),
        mid_y + y1 + 2 * (y2 - y1) * diverge + rng.off(-half, half, r),
    )
    end = (x2 + rng.off(-half, half, r), y2 + rng.off(-half, half, r))
    # relative control points: shorter numbers, a smaller page
    sx, sy = round(sx, 1), round(sy, 1)
    c1, c2 = _control((sx, sy), c1), _control((sx, sy), c2)
    rel = " ".join(_pt(px - sx, py - sy) for px, py in (c1, c2, end))
    return (f"M{_pt(sx, sy)}" if move else "") + f"c{rel}"


def line(rng: Rng, p1: Point, p2: Point, roughness: float = 1.0, passes: int = 2) -> str:
    """A line drawn `passes` times (2 = the sketchy double stroke)."""
    return "".join(_line_pass(rng, p1, p2, roughness, True) for _ in range(passes))


def polyline(
    rng: Rng, points: Sequence[Point], roughness: float = 1.0, closed: bool = False, passes: int = 2
) -> str:
    pts = list(points) + ([points[0]] if closed else [])
    return "".join(line(rng, a, b, roughness, passes) for a, b in zip(pts, pts[1:], strict=False))


def rect(
    rng: Rng, x: float, y: float, w: float, h: float, roughness: float = 1.0, passes: int = 2
) -> str:
    return polyline(rng, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)], roughness, True, passes)


def _catmull(points: Sequence[Point], closed: bool) -> str:
    """A smooth path through the points (Catmull-Rom turned into cubic Béziers)."""
    pts = list(points)
    n = len(pts)
    out = [f"M{_pt(*pts[0])}"]
    last = n if closed else n - 1
    for i in range(last):
        p0 = pts[(i - 1) % n] if closed or i > 0 else pts[0]
        p1, p2 = pts[i], pts[(i + 1) % n]
        p3 = pts[(i + 2) % n] if closed or i + 2 < n else p2
        c1 = _control(p1, (p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6))
        c2 = _control(p1, (p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6))
        out.append(f"C{_pt(*c1)} {_pt(*c2)} {_pt(*p2)}")
    return "".join(out)


def curve(rng: Rng, points: Sequence[Point], roughness: float = 1.0, passes: int = 2) -> str:
    """A hand-drawn open curve through the points, each pass jittered a little."""
    out = []
    for _ in range(passes):
        jit = [(x + rng.off(-1, 1, roughness), y + rng.off(-1, 1, roughness)) for x, y in points]
        out.append(_catmull(jit, closed=False))
    return "".join(out)


def blob(rng: Rng, points: Sequence[Point], roughness: float = 1.0, passes: int = 2) -> str:
    """A closed wobbly outline through the points; the second pass starts a little later so the
    ends overlap like a pen lifted late."""
    out = []
    for k in range(passes):
        jit = [(x + rng.off(-1, 1, roughness), y + rng.off(-1, 1, roughness)) for x, y in points]
        shift = k % len(jit)
        out.append(_catmull(jit[shift:] + jit[:shift], closed=True))
    return "".join(out)


def ellipse_points(
    cx: float, cy: float, rx: float, ry: float, count: int = ELLIPSE_POINTS, start: float = 0.0
) -> list[Point]:
    step = 2 * math.pi / count
    return [
        (cx + rx * math.cos(start + i * step), cy + ry * math.sin(start + i * step))
        for i in range(count)
    ]


def ellipse(
    rng: Rng, cx: float, cy: float, rx: float, ry: float, roughness: float = 1.0, passes: int = 2
) -> str:
    start = rng.next() * math.pi
    return blob(rng, ellipse_points(cx, cy, rx, ry, start=start), roughness, passes)


def rounded_points(x: float, y: float, w: float, h: float, r: float) -> list[Point]:
    """Outline points of a rounded rectangle (corners sampled at 45°)."""
    r = min(r, w / 2, h / 2)
    k = r * (1 - math.sqrt(0.5))
    return [
        (x + r, y),
        (x + w - r, y),
        (x + w - k, y + k),
        (x + w, y + r),
        (x + w, y + h - r),
        (x + w - k, y + h - k),
        (x + w - r, y + h),
        (x + r, y + h),
        (x + k, y + h - k),
        (x, y + h - r),
        (x, y + r),
        (x + k, y + k),
    ]


def rounded_rect(
    rng: Rng,
    x: float,
    y: float,
    w: float,
    h: float,
    r: float = 8.0,
    roughness: float = 1.0,
    passes: int = 2,
) -> str:
    return blob(rng, rounded_points(x, y, w, h, r), roughness * 0.6, passes)


def smooth_closed(points: Sequence[Point]) -> str:
    """A smooth closed outline without jitter (fills under a rough outline)."""
    return _catmull(points, closed=True) + "Z"


def arrow_head(rng: Rng, tip: Point, tail: Point, size: float = 8.0, roughness: float = 0.7) -> str:
    angle = math.atan2(tip[1] - tail[1], tip[0] - tail[0])
    out = []
    for side in (-1, 1):
        a = angle + math.pi + side * 0.45
        out.append(
            line(rng, tip, (tip[0] + size * math.cos(a), tip[1] + size * math.sin(a)), roughness, 1)
        )
    return "".join(out)


def arrow(
    rng: Rng, tail: Point, tip: Point, roughness: float = 0.8, bend: float = 0.0, head: float = 8.0
) -> str:
    """A hand-drawn arrow; `bend` bows the shaft sideways (px) for a livelier curve."""
    if bend:
        mx, my = (tail[0] + tip[0]) / 2, (tail[1] + tip[1]) / 2
        length = math.hypot(tip[0] - tail[0], tip[1] - tail[1]) or 1.0
        nx, ny = -(tip[1] - tail[1]) / length, (tip[0] - tail[0]) / length
        mid = (mx + nx * bend, my + ny * bend)
        shaft = curve(rng, [tail, mid, tip], roughness, 2)
        return shaft + arrow_head(rng, tip, mid, head, roughness)
    return line(rng, tail, tip, roughness, 2) + arrow_head(rng, tip, tail, head, roughness)


def _scan_segments(
    poly: Sequence[Point], gap: float, angle_deg: float
) -> list[tuple[Point, Point]]:
    """Hachure: parallel lines `gap` apart at `angle_deg`, clipped to the polygon."""
    a = math.radians(angle_deg)
    cos_a, sin_a = math.cos(a), math.sin(a)
    rot = [(x * cos_a + y * sin_a, -x * sin_a + y * cos_a) for x, y in poly]
    ys = [p[1] for p in rot]
    segments: list[tuple[Point, Point]] = []
    y = min(ys) + gap / 2
    while y < max(ys):
        xs = []
        for (x1, y1), (x2, y2) in zip(rot, rot[1:] + rot[:1], strict=False):
            if (y1 <= y < y2) or (y2 <= y < y1):
                xs.append(x1 + (y - y1) * (x2 - x1) / (y2 - y1))
        xs.sort()
        for x_start, x_end in zip(xs[::2], xs[1::2], strict=False):
            p = (x_start * cos_a - y * sin_a, x_start * sin_a + y * cos_a)
            q = (x_end * cos_a - y * sin_a, x_end * sin_a + y * cos_a)
            segments.append((p, q))
        y += gap
    return segments


def hachure(
    rng: Rng,
    poly: Sequence[Point],
    gap: float = HACHURE_GAP,
    angle: float = HACHURE_ANGLE,
    roughness: float = 0.6,
    cross: bool = False,
) -> str:
    """Hachure fill of a polygon (one light pass per stroke to keep the SVG small)."""
    out = []
    for ang in (angle, CROSS_ANGLE) if cross else (angle,):
        for p, q in _scan_segments(poly, gap, ang):
            if math.hypot(q[0] - p[0], q[1] - p[1]) < 1.5:
                continue
            out.append(
                f"M{_pt(p[0] + rng.off(-0.6, 0.6, roughness), p[1])}"
                f"L{_pt(q[0] + rng.off(-0.6, 0.6, roughness), q[1])}"
            )
    return "".join(out)


def jitter_poly(rng: Rng, points: Sequence[Point], amount: float = 0.8, closed: bool = True) -> str:
    """A cheap hand-drawn outline: straight segments between slightly moved corners. Used for the
    many small cells of a scene, where cubic double strokes would bloat the page."""
    moved = [(x + rng.off(-1, 1, amount), y + rng.off(-1, 1, amount)) for x, y in points]
    return "M" + "L".join(_pt(x, y) for x, y in moved) + ("Z" if closed else "")


def rect_poly(x: float, y: float, w: float, h: float) -> list[Point]:
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
