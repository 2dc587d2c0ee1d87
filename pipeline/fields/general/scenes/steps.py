"""`draw_worked_step`: the walkthrough strip of one derived quantity: the quantities its formula
reads as small labelled tokens, left to right, then an arrow to its result in a bolder token.

Every word and number is the view's (labels, numbers with units); the row's sentence beside the
strip says the arithmetic ("left = 3000 − 1000 = 2000"). When the tokens are too wide for the
strip they drop their labels, and the formula's signs and constants are written between them
(so "((6 − 1 × 1)^2 + …) ÷ 3" still reads as arithmetic), then their units (the sentence keeps
both); past that the strip refuses (FitError).
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.defs import STRIP_SIZE
from pipeline.draw.filters import shared_filter
from pipeline.draw.layout import FitError
from pipeline.draw.palette import PAPER
from pipeline.draw.scene import MIN_TEXT
from pipeline.fields.general.example import ExampleView, QuantityView
from pipeline.fields.general.formula import FormulaError, Name, names, parse, pieces
from pipeline.fields.general.scenes.common import amount, text_height, text_width

WIDTH, HEIGHT = STRIP_SIZE  # the shared "s" wobble filters are sized for it
INSET = 4.0
LABEL = MIN_TEXT
NUMBER = 14.5
PAD_X = 6.0
GAP = 8.0
SIGN_GAP = 2.0  # between a token and a sign of the formula drawn beside it
SIGN = NUMBER + 3  # the hand font's × ÷ − ^ are small glyphs
SHAPE_PAD = 3.5  # a token's padding among the formula's signs (tighter, to fit more)
ARROW_W = 30.0
MID = HEIGHT / 2
DETAIL = (2, 1, 0)
LINE_GAP = 2.0  # between a token's label and its number (the layout keeps texts 1 px apart)


def inputs_of(view: ExampleView, q: QuantityView) -> list[QuantityView]:
    """The quantities `q`'s formula reads, in the order it reads them."""
    try:
        read = names(parse(q.formula)) if q.formula else []
    except FormulaError:
        return []
    return [view.quantities[n] for n in read if n in view.quantities]


def _number(q: QuantityView, detail: int) -> str:
    return amount(q) if detail > 0 else q.text


def _token_width(q: QuantityView, lang: str, detail: int, pad: float = PAD_X) -> float:
    widths = [text_width(_number(q, detail), lang, NUMBER)]
    if detail > 1:
        widths.append(text_width(q.label, lang, LABEL))
    return max(widths) + 2 * pad


def _token(
    cv: Canvas, lang: str, q: QuantityView, x: float, w: float, detail: int, result: bool,
    eid: str | None = None,
) -> None:
    number = _number(q, detail)
    labelled = detail > 1
    h = text_height(number, lang, NUMBER) + 6
    if labelled:
        h += text_height(q.label, lang, LABEL) + LINE_GAP
    y = MID - h / 2
    pts = rough.rounded_points(x, y, w, h, 7)
    cv.fill(rough.smooth_closed(pts), PAPER)
    cv.stroke(
        rough.blob(cv.rng(eid or f"token-{q.name}"), pts, 0.4, 2 if result else 1),
        width=2.2 if result else 1.4,
    )
    cx = x + w / 2
    if labelled:
        lh = text_height(q.label, lang, LABEL)
        cv.layout.place(q.label, x=cx, cy=y + 3 + lh / 2, role="label", size=LABEL, floor=None)
        cv.layout.place(
            number,
            x=cx,
            cy=y + 3 + lh + LINE_GAP + text_height(number, lang, NUMBER) / 2,
            role="label",
            size=NUMBER,
            floor=None,
        )
    else:
        cv.layout.place(number, x=cx, cy=MID, role="label", size=NUMBER, floor=None)


def draw_worked_step(view: ExampleView, name: str, *, lang: str, seed_id: str) -> str:
    """The strip (SVG) for the walkthrough row that computes derived quantity `name`."""
    q = view.quantities.get(name)
    if q is None:
        raise KeyError(f"worked example '{view.id}' has no quantity '{name}'")
    sid = f"worked-{seed_id}"
    reads: Shape = list(inputs_of(view, q))
    room = WIDTH - 2 * INSET - 4
    shape = _shape(view, q)
    # labels, numbers and units; numbers and units; numbers: the first that fits, each tried
    # first with the formula's own signs between the tokens, so even a strip of bare numbers
    # says what is done to them (a reader met "6 1 1 23 2 22 4 → 263.33")
    total = 0.0
    for detail in DETAIL:
        for items, gap, pad in ((shape, SIGN_GAP, SHAPE_PAD), (reads, GAP, PAD_X)):
            if items is shape and not shape:
                continue
            total = (_items_width(items, lang, detail, gap, pad) + ARROW_W
                     + _token_width(q, lang, detail))
            if total <= room:
                return _draw_strip(q, items, lang, detail, sid, total, gap, pad)
    raise FitError(
        f"walkthrough step {name}: its {len(reads)} inputs and result need "
        f"{total:.0f} px, the strip has {room:.0f}",
        q.label,
    )


Shape = list[str | QuantityView]


def _shape(view: ExampleView, q: QuantityView) -> Shape:
    """`q`'s formula as its signs and the quantities it reads, in reading order; [] when it has
    no formula or reads a name the view lacks."""
    try:
        parts = pieces(parse(q.formula)) if q.formula else []
    except FormulaError:
        return []
    out: Shape = []
    for part in parts:
        if isinstance(part, Name):
            if part.name not in view.quantities:
                return []
            out.append(view.quantities[part.name])
        elif part.strip():
            sign = part.strip()
            if out and isinstance(out[-1], str):  # "))" or ")^2 + (": one run of text
                before = out[-1]
                tight = sign == ")" or sign.startswith("^") or before.endswith(("(", "^"))
                out[-1] = before + sign if tight else f"{before} {sign}"
            else:
                out.append(sign)
    return out


def _items_width(items: Shape, lang: str, detail: int, gap: float, pad: float) -> float:
    return sum((_token_width(p, lang, detail, pad) if not isinstance(p, str)
                else text_width(p, lang, SIGN)) + gap for p in items)


def _draw_strip(q: QuantityView, items: Shape, lang: str, detail: int, sid: str, total: float,
                gap: float, pad: float) -> str:
    """The tokens (and any signs of the formula between them), the arrow, the result."""
    cv = new_canvas(sid, WIDTH, HEIGHT, INSET, lang, f"walkthrough step {q.name}",
                    shared_filter=shared_filter("s", sid), min_text=MIN_TEXT)
    x = (WIDTH - total) / 2  # centred: the strip spans a whole phone column
    for k, part in enumerate(items):
        if isinstance(part, str):
            w = text_width(part, lang, SIGN)
            cv.layout.place(part, x=x + w / 2, cy=MID, role="label", size=SIGN, floor=None)
        else:
            w = _token_width(part, lang, detail, pad)
            _token(cv, lang, part, x, w, detail, False, eid=f"token-{k}")
        x += w + gap
    arrow = rough.arrow(cv.rng("gives"), (x, MID), (x + ARROW_W - 8, MID), 0.4, 0, 6)
    cv.stroke(arrow, width=1.6)
    x += ARROW_W
    _token(cv, lang, q, x, _token_width(q, lang, detail), detail, True)
    title = f"{q.label} = {amount(q)}"
    return cv.svg(css_class="step-strip", element_id=sid, title=title, desc=q.worked or title)
