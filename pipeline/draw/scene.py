"""What every scene of every field shares: the panel's scene area and text sizes, the context a
scene reads (the panel, its run's typed view, the language) and what it hands back.

A field's scene is a `SceneFn`: it draws onto the panel's canvas from `ctx.run` (a serving trace,
a training run, a worked example: whatever its field's engine produced) and returns the sentence
for the panel's `<desc>` and whether it showed numbers (then the panel gets the 示意值 tag).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pipeline.numfmt import one_decimal
from pipeline.plan.model import Concept, Panel

if TYPE_CHECKING:
    from pipeline.draw.canvas import Canvas

# The panel is 400 x 260; scenes draw inside this box, the caption band sits below it.
SCENE_X0, SCENE_Y0, SCENE_X1, SCENE_Y1 = 16.0, 16.0, 384.0, 198.0
SCENE_TOP = 42.0  # below the top strip: the 示意值 tag (right) and a small key (left)
KEY_CY = 27.0
# A panel renders 327 px wide in the 390 px phone layout (362 px column minus the card's padding
# and border), a 0.82 scale: 13.5 units is the smallest size that still comes out at 11 px.
PHONE_PANEL_PX = 327.0
MIN_PHONE_PX = 11.0
MIN_TEXT = 13.5
SMALL_SIZE = MIN_TEXT  # tick numbers, cell counts, key words: the smallest text in a panel

Words = Mapping[str, Mapping[str, str]]  # language -> key -> word


@dataclass
class SceneContext:
    """Everything a scene may read: the panel, its run's view, the language and the focus, and
    the run of the card's other panel when both show one scenario (so the two panels can compare
    the same moment on the same scale)."""

    concept: Concept
    side: str
    panel: Panel
    run: Any  # the field's typed view of the panel's run (e.g. a TraceView), or None
    lang: str
    focus: Sequence[str] = field(default_factory=list)
    words: Words = field(default_factory=dict)
    # the card's other panel's run when it shows the same scenario; for two worked examples a
    # `PanelPartner` (the other panel with its run, so both can share one scale); else None
    partner: Any = None

    @property
    def trace(self) -> Any:
        """The run's view under the name the simulated fields' scenes use."""
        return self.run

    def word(self, key: str) -> str:
        return self.words[self.lang][key]


@dataclass(frozen=True)
class PanelPartner:
    """The card's other panel and its run's view, for scenes that draw the same quantities on
    both panels of a card (a shared scale: the same number is the same length on both)."""

    panel: Panel
    run: Any


@dataclass
class SceneResult:
    desc: str
    numbers: bool


SceneFn = Callable[["Canvas", SceneContext], SceneResult]


@dataclass(frozen=True)
class SceneSpec:
    """One scene kind as a field registers it: what it shows (the prompt's words) and how it is
    drawn, with the words its context reads."""

    kind: str
    shows: str
    draw: SceneFn
    words: Words = field(default_factory=dict)


def fmt(value: float) -> str:
    return one_decimal(value)
