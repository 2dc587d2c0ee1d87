"""What the general field's scenes share: the quantities a panel shows by role, a number with its
unit, the neutral (ink) bar, labels spread along a column, the refusal of an example a scene
cannot draw truthfully, and the fixed words the scenes write in both languages.

Every number a scene writes is a quantity's `text` (as the page writes it) or a difference of
two shown quantities written with `number_text` (room left, the change of a before/after), so the
picture and the walkthrough never disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pipeline import fonts
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.key import KEY_GAP, SWATCH, swatch
from pipeline.draw.layout import FLOOR, LINE_HEIGHT, FitError, family_for, vertical_metrics
from pipeline.draw.palette import INK
from pipeline.draw.scene import KEY_CY, MIN_TEXT, PanelPartner, SceneContext
from pipeline.fields.general.example import QuantityView

LABEL_SIZE = 15.0  # a quantity's label and number: shrinks to MIN_TEXT (the layout's floor)
SMALL = MIN_TEXT  # fixed words (key, tags): the smallest text a panel may write
HATCH_OPACITY = 0.45  # a neutral bar's ink hachure: visible, the number on top still reads
NEUTRAL_GAP = 5.0
MIN_SLIVER = 2.0  # px: a non-zero bar too short to see at scale is still drawn this wide
GLUED_UNITS = ("%", "‰", "°", "/", "′", "″")  # units written without a space: 45%, 30/h

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        "capacity": "容量",
        "over": "超出",
        "left": "剩余",
        "bottleneck": "瓶颈",
        "queue": "排队变长",
        "arrival": "到达",
        "before": "之前",
        "after": "之后",
        "change": "变化",
        "same": "没变",
        "free": "空位",
        "zoom": "本格放大 {n} 倍才看得清",
        "waiting": "等待",
        "working": "在做",
        "time": "时间",
    },
    "en": {
        "capacity": "capacity",
        "over": "over",
        "left": "left",
        "bottleneck": "bottleneck",
        "queue": "queue grows",
        "arrival": "arriving",
        "before": "before",
        "after": "after",
        "change": "change",
        "same": "no change",
        "free": "free",
        "zoom": "drawn {n}× larger, to be seen",
        "waiting": "waiting",
        "working": "working",
        "time": "time",
    },
}


class SceneRefusal(FitError):
    """A worked example a general scene cannot draw truthfully (a negative bar, more held
    slots than slots, a role the panel did not fill). A FitError, so the validator reports it
    at the panel like a text that does not fit, and the page never shows a wrong picture."""


def refuse(cv: Canvas, kind: str, message: str) -> FitError:
    return SceneRefusal(f"{cv.layout.owner}: the {kind} scene {message}")


def role_entries(cv: Canvas, ctx: SceneContext, kind: str, role: str) -> list[list[QuantityView]]:
    """The quantities of each `show` entry with `role`, in the panel's order; a refusal when
    the example does not have one of them."""
    out = []
    for entry in ctx.panel.show:
        if entry.role != role:
            continue
        got = []
        for name in entry.quantities:
            q = ctx.run.get(name)
            if q is None:
                raise refuse(
                    cv, kind, f"shows '{name}', which example '{ctx.run.id}' does not have"
                )
            got.append(q)
        out.append(got)
    return out


def partner_entries(ctx: SceneContext, scene: str | Sequence[str],
                    roles: Sequence[str]) -> list[tuple[str, list[QuantityView]]] | None:
    """Each `show` entry of the card's other panel with one of `roles`, as (role, its
    quantities), when that panel draws a worked example with one of `scene`'s kinds (one scale
    across the card); None when it does not, or names a quantity its example lacks (that panel
    refuses itself)."""
    partner = ctx.partner
    kinds = (scene,) if isinstance(scene, str) else tuple(scene)
    if not isinstance(partner, PanelPartner) or partner.panel.scene not in kinds:
        return None
    out: list[tuple[str, list[QuantityView]]] = []
    for entry in partner.panel.show:
        if entry.role not in roles:
            continue
        got = [partner.run.get(name) for name in entry.quantities]
        if any(q is None for q in got):
            return None
        out.append((entry.role, [q for q in got if q is not None]))
    return out


def partner_quantities(ctx: SceneContext, scene: str | Sequence[str],
                       roles: Sequence[str]) -> dict[str, list[QuantityView]] | None:
    """`partner_entries` by role, each role's quantities in one list."""
    entries = partner_entries(ctx, scene, roles)
    if entries is None:
        return None
    got: dict[str, list[QuantityView]] = {role: [] for role in roles}
    for role, quantities in entries:
        got[role].extend(quantities)
    return got


def role_quantities(
    cv: Canvas, ctx: SceneContext, kind: str, role: str, required: bool = True
) -> list[QuantityView]:
    """Every quantity the panel gives `role` (one entry's, flattened)."""
    found = [q for entry in role_entries(cv, ctx, kind, role) for q in entry]
    if required and not found:
        raise refuse(cv, kind, f"needs a '{role}' entry in the panel's `show`")
    return found


def non_negative(cv: Canvas, kind: str, quantities: Sequence[QuantityView]) -> None:
    """Bars start at zero: a negative quantity cannot be one."""
    for q in quantities:
        if q.value < 0:
            raise refuse(
                cv,
                kind,
                f"draws '{q.name}' ({q.text}) as a length from zero; a "
                "negative number cannot be one: show a quantity that is not negative",
            )


def amount(q: QuantityView) -> str:
    """The number as the page writes it, with its unit: `3000 元`, `45%`, `30/h`, `1 step`."""
    return with_unit(q.text, q.unit)


def singular(unit: str) -> str:
    """An English plural unit word in the singular (`steps` → `step`, `GPUs` → `GPU`): a
    word of four or more letters ending in one `s`; abbreviations (`ms`, `ns`) stay."""
    if len(unit) >= 4 and unit.isalpha() and unit.endswith("s") and not unit.endswith("ss"):
        return unit[:-1]
    return unit


def with_unit(text: str, unit: str) -> str:
    """A number written with its unit, the unit in the singular for exactly one (a reader met
    "1 steps")."""
    if not unit:
        return text
    if text in ("1", "1.0", "-1"):
        unit = singular(unit)
    return f"{text}{'' if unit.startswith(GLUED_UNITS) else ' '}{unit}"


def text_width(text: str, lang: str, size: float) -> float:
    return fonts.measure(text, family_for(text, lang), size)


def text_height(text: str, lang: str, size: float, lines: int = 1) -> float:
    """The height of the box the layout gives this text (its font's ascent + descent)."""
    ascent, descent = vertical_metrics(family_for(text, lang))
    return size * (ascent + descent) + size * LINE_HEIGHT * (lines - 1)


def fitted_height(
    cv: Canvas, text: str, lang: str, size: float, room: float, max_lines: int, shrink: bool = True
) -> float:
    """The height `cv.layout.place` will give this text in `room` px over at most `max_lines`
    (shrunk as far as the panel's smallest size allows when `shrink`); FitError if it cannot
    fit, as `place` would raise."""
    floor = 1.0
    if shrink:
        floor = max(FLOOR, min(1.0, math.ceil(cv.layout.min_size / size * 10) / 10))
    lines, used = cv.layout.fit(text, family_for(text, lang), size, room, max_lines, floor, "label")
    return text_height(text, lang, used, len(lines))


def neutral_bar(
    cv: Canvas, eid: str, x: float, y: float, w: float, h: float, angle: float = rough.HACHURE_ANGLE
) -> None:
    """A quantity drawn as a length: an ink outline (double stroke) over a light ink hachure.
    Ink, never a state colour: a bar is not running, new, stored, freed or idle (P14)."""
    rng = cv.rng(eid)
    if w < MIN_SLIVER:
        cv.stroke(rough.line(rng, (x, y), (x, y + h), 0.3, 2), width=1.6)
        return
    poly = rough.rect_poly(x, y, w, h)
    cv.stroke(rough.hachure(rng, poly, NEUTRAL_GAP, angle), INK, width=0.9, opacity=HATCH_OPACITY)
    cv.stroke(rough.rect(rng, x, y, w, h, 0.5, 2), width=1.5)


def bar_length(value: float, scale: float) -> float:
    """A bar's drawn length: exact, but a non-zero value never vanishes (MIN_SLIVER)."""
    length = value * scale
    return max(MIN_SLIVER, length) if value > 0 else 0.0


def spread(
    wanted: Sequence[float], heights: Sequence[float], low: float, high: float, gap: float = 2.0
) -> list[float] | None:
    """Centres for labels stacked in one column, each as near its wanted centre as the others
    allow, none overlapping (`gap` apart), all within [low, high]; `wanted` is in top-to-bottom
    order. None when they cannot all fit."""
    if sum(heights) + gap * (len(heights) - 1) > high - low:
        return None
    centres = []
    edge = low
    for want, h in zip(wanted, heights, strict=True):  # push down past the one above
        c = max(want, edge + h / 2)
        centres.append(c)
        edge = c + h / 2 + gap
    edge = high
    for i in range(len(centres) - 1, -1, -1):  # then pull up above the one below
        h = heights[i]
        centres[i] = min(centres[i], edge - h / 2)
        edge = centres[i] - h / 2 - gap
    return centres


def leader(cv: Canvas, eid: str, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A thin pen line from a shape to its label."""
    cv.stroke(rough.line(cv.rng(eid), start, end, 0.3, 1), width=1.0)


def draw_key(cv: Canvas, kinds: Sequence[tuple[str, str]], x0: float) -> float:
    """The colour key in the top strip: the page's own swatch per kind, then the scene's word
    for it (the serving key's words are serving's: prefill, decode). Returns the x after it."""
    x = x0
    for kind, word in kinds:
        swatch(cv, kind, x, KEY_CY)
        placed = cv.layout.place(
            word, x=x + SWATCH + 3, cy=KEY_CY, role="label", size=SMALL, anchor="start", floor=None
        )
        x = placed.box.x1 + KEY_GAP
    return x
