"""The plan: the typed contract between the LLM (or a human) and every drawing stage.

A plan says WHAT the page explains (concepts in dependency order, two comic panels each, the main
thread, ruler, walkthrough, route) and never HOW it looks or which numbers it shows: numbers in
captions are placeholders such as `{D.ttft}` filled from the simulator at render time.

`load_plan(path)` parses and type-checks; the page rules the plan must also keep (with JSON
paths) are in `pipeline.plan.rules` (`plan_violations`, `check_plan`).
Validate a folder's plan with `tujie validate SRC` (or `tujie build`, which does it first).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
)

from pipeline.config import MAX_TITLE
from pipeline.errors import PlanError, Violation
from pipeline.jsonlimits import MAX_JSON_DEPTH, JSONRefused, NonFinite, nesting_depth, too_deep
from pipeline.jsonlimits import loads as json_loads
from pipeline.reader import PLAN, FileRefused, read_text
from pipeline.urls import has_credentials

PLAN_FORMAT = 1
MIN_CONCEPTS, MAX_CONCEPTS = 8, 13
MAX_CAPTION = {"zh": 15, "en": 40}
MAX_BODY_SENTENCES = 4
MIN_ROUTE, MAX_ROUTE = 3, 4

Lang = Literal["zh", "en"]
Variant = Literal["without", "with"]
Progress = Literal["learned", "review", "next"]
# Scene kinds, fields and metric ids are names from the field registry (`pipeline.fields`): the
# plan model knows their shape, the validator checks them against the registry (and the prompt's
# schema lists the chosen fields' names), so a new field needs no change here.
NAME = r"^[a-z][a-z0-9_]*$"
SceneKind = str
MetricId = str


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Stage(_Model):
    """One station of the main thread (e.g. 'queue', 'pick', 'batch', 'GPU step', 'release')."""

    label: str = Field(min_length=1, max_length=24)
    detail: str = Field(default="", max_length=60)


class MainThread(_Model):
    """The loop, pipeline or tension that runs through every concept (P4)."""

    sentence: str = Field(min_length=1)
    kind: Literal["loop", "pipeline", "tension"]
    stages: list[Stage] = Field(min_length=3, max_length=7)


class CastMember(_Model):
    """A fixed character of every diagram (P5): A, B, C old requests, D the newcomer."""

    id: str = Field(pattern=r"^[A-Z]$")
    role: str = Field(min_length=1, max_length=40)
    state: Literal["running", "new", "stored", "freed", "idle"] = "running"


class GlossaryEntry(_Model):
    """A term and its one-sentence definition (P1)."""

    term: str = Field(min_length=1, max_length=40)
    definition: str = Field(min_length=1, max_length=160)
    aliases: list[str] = Field(default_factory=list)


class Citation(_Model):
    """A passage of a source that backs a concept (and any literal number it states)."""

    source: str = Field(min_length=1, description="a source id from sources.json")
    quote: str = Field(min_length=4, max_length=400)


class Quantity(_Model):
    """One number of a worked example (the general field, FIELDS.md): `quoted` (its `value`
    stands in `quote`, a passage of `source`), `illustrative` (small and round; the panel says
    示意值) or `derived` (its `formula` over the example's other quantities, which tujie
    evaluates itself: + - * / ^, min, max, parentheses)."""

    name: str = Field(pattern=NAME, max_length=32, description="used in formulas and {name}")
    label: str = Field(min_length=1, max_length=24, description="the words a picture shows")
    unit: str = Field(default="", max_length=12)
    kind: Literal["quoted", "illustrative", "derived"]
    value: float = Field(default=0, description="the number (quoted or illustrative)")
    formula: str = Field(default="", max_length=200, description="how a derived one is computed")
    source: str = Field(default="", description="a quoted one's source id")
    quote: str = Field(default="", max_length=400, description="the passage holding the number")

    @field_serializer("value")
    def _whole_value(self, value: float) -> float | int:
        return int(value) if value == int(value) else value


class WorkedExample(_Model):
    """A small worked example a general-field panel draws (FIELDS.md): its quantities, given
    and derived; a caption's `{name}` is one of them, computed by tujie."""

    id: str = Field(pattern=NAME, max_length=40)
    title: str = Field(min_length=1, max_length=60)
    quantities: list[Quantity] = Field(min_length=1, max_length=24)

    def quantity(self, name: str) -> Quantity | None:
        return next((q for q in self.quantities if q.name == name), None)


class ShowRole(_Model):
    """Which of the example's quantities play one role of a general scene (e.g. `capacity`,
    `parts`, a `lane`): the scene's roles are listed with the scene."""

    role: str = Field(pattern=NAME, max_length=24)
    quantities: list[str] = Field(min_length=1, max_length=8)


class Effect(_Model):
    """What a technique does to one ruler metric, as a source says (a field without an engine:
    the direction with its citation; `amount` only as the quote writes it)."""

    metric: str = Field(pattern=NAME, description="a ruler metric id")
    change: Literal["up", "down", "none"]
    source: str = Field(min_length=1, description="a source id")
    quote: str = Field(min_length=4, max_length=400, description="the passage that says so")
    amount: str = Field(default="", max_length=24, description="the size, copied from the quote")


class Knob(_Model):
    """One knob of the panel's scenario set to the article's own number (the scenario declares
    its knobs and their ranges: `sim.presets.knobs`), e.g. D's prompt length."""

    name: str = Field(min_length=1, max_length=40, description="a knob id of the scenario")
    value: float

    @field_serializer("value")
    def _whole(self, value: float) -> float | int:
        return int(value) if value == int(value) else value


class Panel(_Model):
    """One comic panel: a caption and a scene drawn from a simulator scenario (its knobs, if
    any, set to the article's numbers)."""

    caption: str = Field(min_length=1)
    scene: SceneKind = Field(pattern=NAME, max_length=32, description="a scene kind")
    scenario: str | None = Field(default=None, description="a sim scenario id, e.g. 'batching'")
    variant: Variant | None = None
    focus: list[str] = Field(default_factory=list, description="cast ids to highlight")
    bubble: str | None = Field(default=None, description="speech bubble (generic scene)")
    labels: list[str] = Field(default_factory=list, max_length=4, description="generic boxes")
    knobs: list[Knob] = Field(
        default_factory=list, max_length=4, description="the scenario's knobs set (optional)"
    )
    example: str = Field(default="", description="a worked example id (general-field scenes)")
    show: list[ShowRole] = Field(
        default_factory=list, max_length=8,
        description="which of the example's quantities the scene draws, by the scene's roles",
    )

    def knob_values(self) -> dict[str, float]:
        return {k.name: k.value for k in self.knobs}


class Concept(_Model):
    """One card: the concept, the trouble it fixes, how, and what it costs (P6, P7)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    field: str = Field(
        default="", pattern=r"^([a-z][a-z0-9_]*)?$",
        description="the id of the field it belongs to (empty: serving)",
    )
    name: str = Field(min_length=1, max_length=20)
    name_en: str = Field(min_length=1, max_length=48)
    solves_problem_of: str | None = Field(
        default=None, description="id of the earlier concept whose problem this one fixes"
    )
    problem_left: str = Field(
        min_length=1, max_length=60, description="the problem this concept leaves for the next"
    )
    body: str = Field(min_length=1, description="at most 4 sentences")
    trouble: Panel
    fix: Panel
    solves: str = Field(min_length=1, max_length=60)
    costs: str = Field(min_length=1, max_length=60)
    terms: list[str] = Field(default_factory=list, description="glossary terms it introduces")
    citations: list[Citation] = Field(default_factory=list)
    progress: Progress | None = None
    technique: str | None = Field(default=None, description="sim sweep technique id (ruler)")
    effects: list[Effect] = Field(
        default_factory=list, description="cited effects on the ruler's metrics (general field)"
    )


class RulerMetric(_Model):
    """One metric of the ruler (P8)."""

    id: MetricId = Field(pattern=NAME, max_length=32)
    name: str = Field(min_length=1, max_length=24)
    better: Literal["higher", "lower"]
    definition: str = Field(min_length=1, max_length=120)


class Ruler(_Model):
    sentence: str = Field(min_length=1)
    metrics: list[RulerMetric] = Field(min_length=2, max_length=3)


class Walkthrough(_Model):
    """The zero-background section (P9) for the concept the reader is stuck on."""

    concept: str
    intro: str = Field(min_length=1)


class RouteStop(_Model):
    """One stop of the learning route (P10); the URL must come from the sources."""

    title: str = Field(min_length=1, max_length=120)
    url: str = Field(pattern=r"^https?://")
    why: str = Field(min_length=1, max_length=120)

    @field_validator("url")
    @classmethod
    def _no_credentials(cls, url: str) -> str:
        # An address with user:password@ would put them in an href on the page (issue 22).
        if has_credentials(url):
            raise ValueError(
                "carries credentials (user:password@ before the host): give the address "
                "without them"
            )
        return url


class Meta(_Model):
    """How the plan was made."""

    made_by: Literal["hand-reviewed", "llm"]
    model: str | None = None
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}")
    source_hash: str | None = None
    prompt_hash: str | None = Field(default=None, description="the prompt it was extracted with")
    path: str | None = Field(default=None, description="llm path: 'direct' or 'notes'")
    usage: dict[str, float] | None = None
    note: str = ""


class Plan(_Model):
    """The whole page, as content. See the module docstring."""

    format: int = PLAN_FORMAT
    lang: Lang = "zh"
    title: str = Field(min_length=1, max_length=MAX_TITLE)
    takeaway: str = Field(min_length=1, description="the one-sentence conclusion (P2)")
    main_thread: MainThread
    cast: list[CastMember] = Field(min_length=1, max_length=6)
    glossary: list[GlossaryEntry] = Field(min_length=1)
    concepts: list[Concept] = Field(min_length=MIN_CONCEPTS, max_length=MAX_CONCEPTS)
    ruler: Ruler
    walkthrough: Walkthrough
    route: list[RouteStop] = Field(min_length=MIN_ROUTE, max_length=MAX_ROUTE)
    examples: list[WorkedExample] = Field(
        default_factory=list, description="worked examples the general field's panels draw"
    )
    meta: Meta

    def concept(self, concept_id: str) -> Concept | None:
        return next((c for c in self.concepts if c.id == concept_id), None)

    def example(self, example_id: str) -> WorkedExample | None:
        return next((e for e in self.examples if e.id == example_id), None)

    def panels(self) -> Iterable[tuple[str, Concept, Panel]]:
        """(JSON path, concept, panel) for every comic panel, in page order."""
        for i, c in enumerate(self.concepts):
            yield f"concepts[{i}].trouble", c, c.trouble
            yield f"concepts[{i}].fix", c, c.fix


# ---------------------------------------------------------------------------------------------
# Loading


def _pydantic_path(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


# What a missing field should hold, where a bare "Field required" leaves the writer guessing:
# a model's answer has no meta (the pipeline adds it), so a hand-written plan is the one that
# meets this message.
MISSING_HINTS = {
    "meta": 'a hand-written plan says how it was made: "meta": {"made_by": "hand-reviewed", '
    '"date": "YYYY-MM-DD"} (`tujie plan` adds it to a model\'s answer)',
}


def violations_from_validation_error(err: ValidationError) -> list[Violation]:
    out = []
    for e in err.errors():
        path = _pydantic_path(tuple(e["loc"]))
        hint = MISSING_HINTS.get(path) if e["type"] == "missing" else None
        out.append(Violation(path, f"{e['msg']}: {hint}" if hint else e["msg"]))
    return out


# C0 and C1 control characters and DEL: a plan that carries them could retitle a terminal or
# hide text on the page. Newline and tab are allowed only in the multi-sentence prose fields.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
PROSE_FIELDS = frozenset({"body", "takeaway", "intro", "sentence", "definition", "quote", "note"})


def control_violations(data: object, path: str = "") -> list[Violation]:
    """Every string of a decoded plan that holds a control character, and every number that is
    not finite (NaN, Infinity, or 1e400, which overflows to it), with its JSON path."""
    out: list[Violation] = []
    stack: list[tuple[str, str, object]] = [(path, "", data)]
    while stack:
        where, key, value = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                stack.append((f"{where}.{k}" if where else str(k), str(k), v))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                stack.append((f"{where}[{i}]", key, v))
        elif isinstance(value, str):
            pattern = CONTROL_BUT_LINES if key in PROSE_FIELDS else CONTROL
            found = pattern.search(value)
            if found:
                code = f"U+{ord(found.group()):04X}"
                out.append(Violation(where or "(root)", f"contains the control character {code}"))
        elif isinstance(value, float) and not math.isfinite(value):
            written = value.literal if isinstance(value, NonFinite) else str(value)
            out.append(Violation(where or "(root)", f"{written} is not a finite number"))
    return sorted(out, key=lambda v: v.path)


def parse_plan(data: object, file: str | Path | None = None) -> Plan:
    """Type-check a decoded plan; raise `PlanError` listing every field problem with its path
    (control characters in any string and non-finite numbers included). Data nested deeper than
    any plan is refused first, before anything walks it."""
    if nesting_depth(data) > MAX_JSON_DEPTH:
        raise PlanError(file, [Violation("(root)", too_deep())])
    controls = control_violations(data)
    try:
        plan = Plan.model_validate(data)
    except ValidationError as err:
        raise PlanError(file, controls + violations_from_validation_error(err)) from None
    if controls:
        raise PlanError(file, controls)
    return plan


def read_plan_text(path: Path, folder: Path | None = None) -> str:
    """The text of a plan file, read through `pipeline.reader` (a regular file inside `folder`,
    by default its own folder, at most MAX_PLAN_BYTES, UTF-8); PlanError naming the file."""
    try:
        return read_text(path, path.parent if folder is None else folder, PLAN)
    except FileRefused as why:
        raise PlanError(path, [Violation("(file)", str(why))]) from None


def load_plan(path: Path, folder: Path | None = None) -> Plan:
    """Read and type-check `plan.json` (see `read_plan_text`). Page rules are checked
    separately (`check_plan`)."""
    raw = read_plan_text(path, folder)
    try:
        data = json_loads(raw)
    except json.JSONDecodeError as err:
        where = f"line {err.lineno} column {err.colno}"
        raise PlanError(
            path, [Violation("(json)", f"not valid JSON at {where}: {err.msg}")]
        ) from None
    except JSONRefused as err:
        raise PlanError(path, [Violation("(json)", str(err))]) from None
    return parse_plan(data, path)


def plan_json_schema() -> dict[str, object]:
    """The JSON Schema of plan.json (`tujie schema`)."""
    return Plan.model_json_schema()


def dump_plan(plan: Plan) -> str:
    """Canonical JSON text of a plan (stable key order, UTF-8, trailing newline)."""
    return (
        json.dumps(plan.model_dump(mode="json", exclude_none=False), ensure_ascii=False, indent=2)
        + "\n"
    )
