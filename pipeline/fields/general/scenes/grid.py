"""grid: `slots` cells (at most 48: seats, pages, lines of a cache...), the first `held` of them
filled blue (kept by someone: stored, P14), then `new` ones orange (taken or made just now: new),
then `freed` ones red dashed (just given back), the rest empty grey outlines; a legend beside the
grid names each kind with its count.

How many are free is slots − held − new − freed, counted here, as a reader would count the cells.
"""

from __future__ import annotations

import math

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import TINT_OPACITY, colour
from pipeline.draw.scene import SCENE_TOP, SCENE_X0, SCENE_Y1, SceneContext, SceneResult
from pipeline.fields.general.roles import MAX_GRID_SLOTS
from pipeline.fields.general.scenes.common import (
    LABEL_SIZE,
    amount,
    refuse,
    role_quantities,
    text_height,
    with_unit,
)

KIND = "grid"
GRID_X0, GRID_X1 = SCENE_X0 + 2, 200.0
GRID_Y0, GRID_Y1 = SCENE_TOP + 4, SCENE_Y1 - 2
MAX_CELL = 30.0
CELL_GAP = 4.0
ICON_X = 212.0
ICON = 12.0
TEXT_X = ICON_X + ICON + 6
TEXT_RIGHT = 384.0
ENTRY_GAP = 8.0


def _count(cv: Canvas, value: float, name: str) -> int:
    if value != int(value) or not 0 <= value <= MAX_GRID_SLOTS:
        raise refuse(cv, KIND, f"counts whole slots, 0-{MAX_GRID_SLOTS}: '{name}' is {value:g}")
    return int(value)


def layout(n: int) -> tuple[int, int, float]:
    """(columns, rows, cell size): the largest square cells that fit n in the grid area."""
    fits = []
    for cols in range(1, max(n, 1) + 1):
        rows = math.ceil(n / cols) if n else 1
        fits.append((min((GRID_X1 - GRID_X0) / cols, (GRID_Y1 - GRID_Y0) / rows, MAX_CELL), rows))
    size = max(cell for cell, _rows in fits)
    # at that size the fewest rows, each as full as it can be: four cores read as a row, not a
    # column, and eight cells as two rows of four
    rows = min(r for cell, r in fits if cell >= size - 1e-9)
    return (math.ceil(n / rows) if n else 1), rows, size


def cell(cv: Canvas, eid: str, x: float, y: float, size: float, kind: str) -> None:
    """One slot: held (blue tint, blue outline), new (orange tint and outline), freed (red
    dashed), free (grey outline)."""
    rng = cv.rng(eid)
    poly = rough.rect_poly(x, y, size, size)
    if kind in ("held", "new"):
        state = "stored" if kind == "held" else "new"
        cv.fill(poly_d(poly), colour(state), TINT_OPACITY + 0.1)
        cv.stroke(rough.jitter_poly(rng, poly, 0.6), colour(state), width=1.5)
    elif kind == "freed":
        cv.stroke(rough.jitter_poly(rng, poly, 0.6), colour("freed"), width=1.5, dashed=True)
    else:
        cv.stroke(rough.jitter_poly(rng, poly, 0.6), colour("idle"), width=1.1)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    slots_q = role_quantities(cv, ctx, KIND, "slots")[0]
    held_q = role_quantities(cv, ctx, KIND, "held")[0]
    new_qs = role_quantities(cv, ctx, KIND, "new", required=False)[:1]
    freed_qs = role_quantities(cv, ctx, KIND, "freed", required=False)[:1]
    slots = _count(cv, slots_q.value, slots_q.name)
    held = _count(cv, held_q.value, held_q.name)
    new = _count(cv, new_qs[0].value, new_qs[0].name) if new_qs else 0
    freed = _count(cv, freed_qs[0].value, freed_qs[0].name) if freed_qs else 0
    free = slots - held - new - freed
    if free < 0:
        said = " + ".join(str(n) for n, qs in ((held, [held_q]), (new, new_qs), (freed, freed_qs))
                          if qs)
        raise refuse(
            cv,
            KIND,
            f"has {slots} slots ('{slots_q.name}'), fewer than the {said} "
            "it fills: a slot is held, new, freed or free, once",
        )
    kinds = ["held"] * held + ["new"] * new + ["freed"] * freed + ["free"] * free
    cols, rows, size = layout(slots)
    x0 = GRID_X0
    y0 = GRID_Y0 + ((GRID_Y1 - GRID_Y0) - rows * size) / 2
    with cv.batch():  # cells of one kind become one path
        for i, kind in enumerate(kinds):
            r, c = divmod(i, cols)
            cell(
                cv,
                f"cell-{i}",
                x0 + c * size + CELL_GAP / 2,
                y0 + r * size + CELL_GAP / 2,
                size - CELL_GAP,
                kind,
            )
    # a kind no cell shows is left out of the legend, like "free 0" (reader cc6 met "copies
    # kept 0" beside four cells that were all new or freed)
    entries: list[tuple[str | None, str]] = [(None, f"{slots_q.label} {amount(slots_q)}")]
    if held:
        entries.append(("held", f"{held_q.label} {amount(held_q)}"))
    if new:
        entries.append(("new", f"{new_qs[0].label} {amount(new_qs[0])}"))
    if freed:
        entries.append(("freed", f"{freed_qs[0].label} {amount(freed_qs[0])}"))
    if free:  # a grid with no free slot has no such kind to explain ("free 0" is noise)
        entries.append(("free", f"{ctx.word('free')} {with_unit(str(free), slots_q.unit)}"))
    _legend(cv, ctx.lang, entries)
    # the freed slots are named by their own label: what they mean is the example's (a failed
    # company, a returned seat), not the grid's
    if ctx.lang == "zh":
        fresh = f"，{new_qs[0].label} {new} 格" if new_qs else ""
        gone = f"，{freed_qs[0].label} {freed} 格" if freed_qs else ""
        empty = f"，空位 {free} 格" if free else ""
        desc = (f"格子图：{slots_q.label}共 {slots} 格，{held_q.label} {held} 格"
                f"{fresh}{gone}{empty}。")
    else:
        fresh = f", {new} {new_qs[0].label}" if new_qs else ""
        gone = f", {freed} {freed_qs[0].label}" if freed_qs else ""
        empty = f", {free} free" if free else ""
        desc = (f"A grid of {slots} slots ({slots_q.label}): {held} {held_q.label}"
                f"{fresh}{gone}{empty}.")
    return SceneResult(desc, True)


def _legend(cv: Canvas, lang: str, entries: list[tuple[str | None, str]]) -> None:
    """Icon + words per kind, stacked from the top of the grid area; a refusal when they run
    past the scene area (into the caption band)."""
    y = GRID_Y0
    for k, (kind, text) in enumerate(entries):
        line_h = text_height(text, lang, LABEL_SIZE)
        placed = cv.layout.place(
            text,
            x=TEXT_X,
            cy=y + line_h / 2,
            role="label",
            size=LABEL_SIZE,
            anchor="start",
            max_width=TEXT_RIGHT - TEXT_X,
            max_lines=2,
        )
        if placed.box.y1 > SCENE_Y1:
            raise refuse(cv, KIND, f"legend runs out of room at '{text}': use shorter labels")
        if kind is not None:
            cell(cv, f"key-{k}", ICON_X, placed.box.y0 + (line_h - ICON) / 2, ICON, kind)
        y = placed.box.y1 + ENTRY_GAP
