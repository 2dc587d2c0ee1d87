"""The registry's shapes, shared by the prompt, the validator and the renderer so what the model
is told, what is checked and what can be drawn cannot drift apart: each field (`pipeline.fields`)
fills a `Catalogue` with its scene kinds, its scenarios (placeholders, knobs, the scenes that
draw them), its ruler's techniques and metrics; a page's `Catalogues` are its fields' ones.
The page-wide limits live here too: when a panel may be `generic`, how many rows the ruler needs.
This module runs nothing and imports no stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

GENERIC = "generic"
GENERIC_ONE_IN = 3  # at most one panel in three may be generic (P13b)
MIN_RULER_ROWS = 3  # the ruler needs this many technique rows when the sweep offers them (P8)
OFFERED_REQUESTS = 5  # request placeholders for the first five requests: what a scene shows
DEFAULT_FIELD = "serving"  # a concept that names no field (plans written before fields)


@dataclass(frozen=True)
class PlaceholderEntry:
    """One placeholder a scenario offers, with the value it takes in each preset variant."""

    name: str
    meaning: str
    unit: str
    without: str | None = None
    with_: str | None = None


@dataclass(frozen=True)
class KnobEntry:
    """One knob of a scenario (declared in `sim.presets.knobs`): its range and preset values."""

    id: str
    meaning: str
    unit: str
    low: float
    high: float
    integer: bool = True
    variants: tuple[str, ...] = ("without", "with")
    preset: tuple[float | None, float | None] = (None, None)  # (without, with)

    def problem(self, value: float) -> str | None:
        """Why a value is refused, or None (the same rule the simulator applies)."""
        if self.integer and value != int(value):
            return f"knob '{self.id}' must be a whole number of {self.unit}"
        if not self.low <= value <= self.high:
            return f"knob '{self.id}' must be {fmt(self.low)}-{fmt(self.high)} {self.unit}"
        return None


@dataclass(frozen=True)
class ScenarioEntry:
    """One simulator scenario as the page may use it."""

    id: str
    title: str
    description: str
    scenes: tuple[str, ...]
    time_unit: str
    placeholders: tuple[PlaceholderEntry, ...] = ()
    knobs: tuple[KnobEntry, ...] = ()
    # What happens in each variant's run, told from the run itself (a caption is written from it)
    stories: Mapping[str, str] = field(default_factory=dict)

    def offers(self, name: str) -> bool:
        return any(p.name == name for p in self.placeholders)

    def knob(self, knob_id: str) -> KnobEntry | None:
        return next((k for k in self.knobs if k.id == knob_id), None)


@dataclass(frozen=True)
class TechniqueEntry:
    """One technique of the ruler's sweep (`sim.presets.sweep`): its id and one line."""

    id: str
    line: str


@dataclass(frozen=True)
class Catalogue:
    """One field's scene kinds, scenarios and ruler techniques, with what the validator checks
    of them."""

    scenarios: Mapping[str, ScenarioEntry] = field(default_factory=dict)
    techniques: tuple[TechniqueEntry, ...] = ()
    ruler_metrics: tuple[str, ...] = ()  # the metric ids the sweep measures every technique on
    scene_shows: Mapping[str, str] = field(default_factory=dict)  # kind -> what it draws
    field: str = DEFAULT_FIELD

    def scenario(self, sid: str | None) -> ScenarioEntry | None:
        return self.scenarios.get(sid) if sid is not None else None

    def can_draw(self, scene: str, sid: str) -> bool:
        """Whether `scene` can draw scenario `sid` (a scenario the catalogue does not know is
        left to the scenario check)."""
        entry = self.scenarios.get(sid)
        return entry is None or scene in entry.scenes

    def technique_ids(self) -> list[str]:
        return [t.id for t in self.techniques]

    def ruler_minimum(self) -> int:
        """Rows the ruler needs: three, or every technique when the sweep offers fewer."""
        return min(MIN_RULER_ROWS, len(self.techniques))


@dataclass(frozen=True)
class Catalogues:
    """The catalogues of the fields a page may draw with, by field id, in registry order."""

    by_field: Mapping[str, Catalogue] = field(default_factory=dict)

    @classmethod
    def of(cls, catalogue: Catalogue | Catalogues) -> Catalogues:
        return catalogue if isinstance(catalogue, Catalogues) else cls({catalogue.field: catalogue})

    def get(self, field_id: str | None) -> Catalogue | None:
        return self.by_field.get(field_id or DEFAULT_FIELD)

    def scene_owner(self, kind: str) -> str | None:
        """The field whose scene kind `kind` is (None: no chosen field's)."""
        return next((f for f, c in self.by_field.items() if kind in c.scene_shows), None)

    def scenario_owners(self, sid: str) -> list[str]:
        return [f for f, c in self.by_field.items() if sid in c.scenarios]

    def technique_ids(self) -> list[str]:
        return [t for c in self.by_field.values() for t in c.technique_ids()]

    def ruler_minimum(self) -> int:
        return min(MIN_RULER_ROWS, len(self.technique_ids()))


def max_generic(panels: int) -> int:
    """How many of `panels` panels may be generic: one in three."""
    return panels // GENERIC_ONE_IN


def fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if value == int(value) else f"{value:g}"


