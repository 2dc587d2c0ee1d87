"""The general field's scene kinds, one module each (`roles.GENERAL_SCENES` says what each shows
and the roles of the quantities it draws), the fixed words they write, and the walkthrough's
strip for a derived quantity.

A scene reads only the quantities the panel's `show` names (`ctx.run` is an `ExampleView`),
draws them in the house style (rough double strokes, the wobble filter, the P14 colours for
states only and ink for plain quantities), lays out every text with the fonts' metrics (a text
that cannot fit raises FitError, as does an example the scene cannot draw truthfully) and
returns the sentence for the panel's `<desc>`.
"""

from __future__ import annotations

from pipeline.draw.scene import SceneFn
from pipeline.fields.general.scenes import (
    before_after,
    compare,
    container,
    flow,
    grid,
    lanes,
    line,
)
from pipeline.fields.general.scenes.common import WORDS
from pipeline.fields.general.scenes.steps import draw_worked_step

SCENE_DRAWINGS: dict[str, SceneFn] = {
    "compare": compare.draw,
    "flow": flow.draw,
    "container": container.draw,
    "grid": grid.draw,
    "lanes": lanes.draw,
    "before_after": before_after.draw,
    "line": line.draw,
}

__all__ = ["SCENE_DRAWINGS", "WORDS", "draw_worked_step"]
