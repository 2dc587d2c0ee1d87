"""The small interface every field implements (FIELDS.md), and the run a panel asks of a field's
engine.

A `Field` owns its cast words, scenarios, scene kinds, ruler, walkthrough and prompt section; the
page engine (plan, validate, sim, render, check, review) reaches them only through the registry
(`pipeline.fields`), so what the model is told, what is checked and what is drawn cannot drift.
A field imports the drawing library and its own engine, never another field.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pipeline.artifacts.sim import TechniqueView, trace_key
from pipeline.draw.scene import SceneSpec
from pipeline.fields.vocabulary import Term
from pipeline.plan.catalogue import DEFAULT_FIELD, Catalogue
from pipeline.plan.model import Panel


def content_key(inputs: Callable[[], Any]) -> str:
    """A run's inputs as text, for the sim stage's key: `inputs()` builds them (the workload of
    a preset with its knobs); a run they refuse keys on its error, which the stage reports."""
    try:
        built = inputs()
    except Exception as err:  # noqa: BLE001 - a bad run is reported by the stage itself
        return json.dumps({"error": str(err)}, sort_keys=True)
    return json.dumps(built, sort_keys=True)

if TYPE_CHECKING:
    from pipeline.artifacts.sim import SimResults
    from pipeline.artifacts.sources import Corpus
    from pipeline.draw.canvas import Canvas
    from pipeline.errors import Violation
    from pipeline.fields.cache import CacheStats
    from pipeline.plan.model import Concept, Plan

Json = Any
Symbol = tuple[str, Callable[["Canvas"], None]]  # a shared drawing: its name and how to draw it


@dataclass(frozen=True)
class Run:
    """One engine run a page needs: a field's scenario, its variant and the knobs set on it."""

    scenario: str
    variant: str
    knobs: tuple[tuple[str, float], ...] = ()
    field: str = DEFAULT_FIELD
    content: str = ""  # the run's input when it lives in the plan (a worked example's JSON)

    @property
    def key(self) -> str:
        """Where its result is kept in the sim artifact: `scenario/variant+knob=value` (serving's
        names as they always were), other fields' prefixed with the field."""
        name = trace_key(self.scenario, self.variant, dict(self.knobs))
        return name if self.field == DEFAULT_FIELD else f"{self.field}:{name}"

    @property
    def preset(self) -> str:
        return f"{self.scenario}/{self.variant}"


@dataclass(frozen=True)
class WalkStep:
    """One row of the zero-background walkthrough: its number, its sentence, its strip (SVG)."""

    index: int
    sentence: str
    strip: str


@dataclass(frozen=True)
class CompareRow:
    """One row of the walkthrough's without-vs-with table."""

    label: str
    without: str
    with_: str


class Field(ABC):
    """A subject tujie can draw: a registry entry (data + code behind this interface)."""

    id: str = ""
    title: str = ""
    # The words a folder about this field uses, with weights (`pipeline.fields.detect`).
    terms: Mapping[str, float] = {}
    # The page's own sentences (keys of `pipeline.render.strings`) this field says otherwise, by
    # language: where its numbers come from, so a page without a simulator never claims one.
    page_words: Mapping[str, Mapping[str, str]] = {}
    # Whether its scenes colour the cast by state (green running, orange new, blue stored, red
    # dashed freed, grey idle): only then does the page's colour key under the cast mean anything.
    cast_colours: bool = False
    # The words its pictures write, by language, each with its definition and the other words
    # for it a page must not use (`pipeline.fields.vocabulary`).
    vocabulary: Mapping[str, Sequence[Term]] = {}

    # -- what the prompt, the validator and the renderer read ---------------------------------
    @abstractmethod
    def scenes(self) -> Mapping[str, SceneSpec]:
        """The field's scene kinds (never `generic`, which every field shares)."""

    @abstractmethod
    def catalogue(self) -> Catalogue:
        """Its scenarios, placeholders, knobs, techniques and ruler metrics."""

    def symbols(self) -> Sequence[Symbol]:
        """Drawings its scenes `<use>` from the page's shared definitions."""
        return ()

    def prompt_section(self, lang: str, catalogue: Catalogue) -> str:
        """What the system prompt says of the field (its cast, scenes and scenarios)."""
        return ""

    # -- the engine ----------------------------------------------------------------------------
    def panel_run(self, plan: Plan, panel: Panel, variant: str | None = None) -> Run | None:
        """The run that draws `panel` of `plan` (or the same panel in its other `variant`)."""
        return None

    def run(self, run: Run, stats: CacheStats | None = None) -> Json:
        """The engine's result for `run` (cached by content); raises the engine's own error."""
        raise NotImplementedError(f"the {self.id} field has no engine runs")

    def run_content(self, run: Run) -> str:
        """The content of the run's input, for the sim stage's key (an edit re-runs it)."""
        return ""

    def sweep(self, stats: CacheStats | None = None) -> Json | None:
        """The ruler's measured sweep, if the field has an engine that measures techniques."""
        return None

    def ruler_row_words(self, tech: TechniqueView, lang: str) -> tuple[str, str, str] | None:
        """(baseline, workload title, workload description) of a ruler row the sweep writes
        without a named workload of its own (None: the ruler names none for it)."""
        return None

    def ruler_machine(self, lang: str) -> str:
        """How the sweep's numbers were computed, for the line under the ruler."""
        return ""

    def panel_note(self, views: Sequence[tuple[str, str, Any]], lang: str) -> str:
        """One line under a card's panels, from (side, scene, run view) of each panel with a
        run: how they keep time, what of the page's fixed cast they change ("" when the
        pictures say it all)."""
        return ""

    def cross_partner(self, scene: str) -> bool:
        """Whether `scene` also reads the card's other panel when that panel draws another
        scenario in the same scene (one scale across the card); by default only a run of the
        same scenario is a partner."""
        return False

    def once_notes(self, lang: str) -> Mapping[str, str]:
        """Phrases of `panel_note` a page says on the first card that needs them only: phrase ->
        what later cards say in its place ({n}: that first card's number)."""
        return {}

    def view(self, result: Json) -> Any:
        """The typed view of a run's result that the field's scenes read."""
        return result

    def values(self, result: Json) -> Mapping[str, str]:
        """The numbers a caption may bind from a run's result (`{D.ttft}` -> "8.8")."""
        return {}

    def numbers(self, result: Json) -> list[tuple[str, str, str, str]]:
        """(key, label, value, unit) of every number a run offers the page, for the review's
        list of numbers that changed."""
        return [(key, key, value, "") for key, value in self.values(result).items()]

    # -- the page's other parts ----------------------------------------------------------------
    def walkthrough(
        self, plan: Plan, concept: Concept, sim: SimResults, lang: str
    ) -> tuple[list[WalkStep], list[CompareRow]] | None:
        """The stuck concept told step by step from its run, and its comparison table (None:
        this concept's panels have no run to tell it from)."""
        return None

    def plan_rules(self, plan: Plan, corpus: Corpus | None) -> list[Violation]:
        """Rules of the field's own beyond the registry's (e.g. worked examples), with paths."""
        return []

    def card_rules(self, path: str, concept: Concept, trouble: Any, fix: Any) -> list[Violation]:
        """What a card's two pictures must show, read from their runs' views (None: a panel
        with no run): a trouble panel that draws a trouble, two panels that compare one
        change. `path` is the card's ("concepts[3]")."""
        return []
