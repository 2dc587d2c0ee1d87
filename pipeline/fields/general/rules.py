"""The general field's own rules, each violation with its JSON path: worked examples whose every
number is quoted (found in the cited passage), illustrative (small and round) or derived (a
formula tujie can compute), and panels whose scene gets the quantities its roles need.
"""

from __future__ import annotations

import math
import re
import unicodedata

from pipeline.artifacts.sources import Corpus, normalize_text
from pipeline.errors import Violation
from pipeline.fields.general.example import ExampleError, evaluate_example
from pipeline.fields.general.formula import FormulaError, parse
from pipeline.fields.general.roles import GENERAL_SCENES, MAX_GRID_SLOTS
from pipeline.plan.model import Panel, Plan, WorkedExample
from pipeline.plan.placeholders import placeholders

FIELD_ID = "general"
ROUND_DIGITS = 2  # an illustrative number has at most this many significant digits
MAX_ILLUSTRATIVE = 1_000_000
QUOTED_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# a minus sign counts only where it cannot be a range's dash or a word's hyphen ("20-26", "v-3")
SIGNED_NUMBER = re.compile(r"(?:(?<![\w.])([-\u2212]))?(\d+(?:[.,]\d+)*)")


def significant_digits(value: float) -> int:
    digits = f"{abs(value):.10g}".replace(".", "").lstrip("0").rstrip("0")
    if "e" in digits:
        digits = digits.split("e")[0]
    return max(1, len(digits))


def numbers_of(text: str) -> list[float]:
    """The numbers a passage writes (3,000 and 3000 alike; 1.5 as 1.5; -79.3 with its sign,
    not the 26 of a range 20-26 as -26). Read from the text as written (NFKC only): the loose
    quote comparison drops whitespace, which would make "(1, 263)" read 1263."""
    out = []
    for sign, raw in SIGNED_NUMBER.findall(unicodedata.normalize("NFKC", text)):
        plain = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw) else raw
        try:
            out.append(-float(plain) if sign else float(plain))
        except ValueError:
            continue
    return out


def example_violations(plan: Plan, corpus: Corpus | None) -> list[Violation]:
    """Every worked example: unique names, each quantity's kind kept, formulas computable."""
    out: list[Violation] = []
    seen_ids: set[str] = set()
    for k, example in enumerate(plan.examples):
        where = f"examples[{k}]"
        if example.id in seen_ids:
            out.append(Violation(f"{where}.id", f"duplicate example id '{example.id}'"))
        seen_ids.add(example.id)
        out += _quantities(where, example, corpus)
    return out


def _quantities(where: str, example: WorkedExample, corpus: Corpus | None) -> list[Violation]:
    out: list[Violation] = []
    names: set[str] = set()
    for j, q in enumerate(example.quantities):
        path = f"{where}.quantities[{j}]"
        if q.name in names:
            out.append(Violation(f"{path}.name", f"duplicate quantity '{q.name}'"))
        names.add(q.name)
        if not math.isfinite(q.value):
            out.append(Violation(f"{path}.value", "not a finite number"))
            continue
        if q.kind == "derived":
            if not q.formula:
                out.append(Violation(f"{path}.formula", "a derived quantity needs a formula"))
            else:
                try:
                    parse(q.formula)
                except FormulaError as err:
                    out.append(Violation(f"{path}.formula", f"'{q.formula}': {err}"))
            continue
        if q.formula:
            out.append(Violation(f"{path}.formula", f"a {q.kind} quantity has a value, not a "
                                 "formula: make it derived, or drop the formula"))
        if q.kind == "illustrative":
            if significant_digits(q.value) > ROUND_DIGITS or abs(q.value) > MAX_ILLUSTRATIVE:
                out.append(Violation(f"{path}.value", (
                    f"an illustrative number is small and round (at most {ROUND_DIGITS} "
                    f"significant digits, at most {MAX_ILLUSTRATIVE:,}): {q.value:g} is not; "
                    "round it, or quote the article's own number")))
            continue
        out += _quoted(path, q.value, q.source, q.quote, corpus)
    if not out:
        try:
            evaluate_example(example)
        except ExampleError as err:
            out.append(Violation(f"{where}.quantities[{err.quantity}].formula", str(err)))
    return out


def _quoted(
    path: str, value: float, source: str, quote: str, corpus: Corpus | None
) -> list[Violation]:
    if not source or not quote:
        return [Violation(f"{path}.quote", "a quoted quantity names its `source` and copies the "
                          "`quote` that holds the number")]
    if corpus is None:
        return []
    if corpus.source(source) is None:
        return [Violation(f"{path}.source", f"unknown source '{source}'")]
    if corpus.find_quote(source, quote) is None:
        return [Violation(f"{path}.quote", f"not found in source '{source}'")]
    written = numbers_of(quote)
    if not any(math.isclose(value, n, rel_tol=1e-9) for n in written):
        return [Violation(f"{path}.value", (
            f"{value:g} is not a number the quote writes (it writes "
            f"{', '.join(f'{n:g}' for n in written) or 'none'}): copy the number "
            "exactly, or make the quantity illustrative"))]
    return []


def panel_violations(path: str, panel: Panel, plan: Plan) -> list[Violation]:
    """A general panel: a worked example of the plan, the roles its scene needs, placeholders
    that are the example's quantities."""
    out: list[Violation] = []
    if panel.scenario is not None:
        out.append(Violation(f"{path}.scenario", "a general scene draws a worked example "
                             "(`example`), not a simulator scenario"))
    scene = GENERAL_SCENES.get(panel.scene)
    if scene is None:
        return out  # a generic panel, or a scene the registry check already refused
    example = plan.example(panel.example)
    if example is None:
        known = ", ".join(e.id for e in plan.examples) or "none declared: add one to `examples`"
        return [*out, Violation(f"{path}.example",
                                f"unknown worked example '{panel.example}' (known: {known})")]
    counts: dict[str, int] = {}
    units: set[str] = set()
    for j, entry in enumerate(panel.show):
        role = scene.role(entry.role)
        where = f"{path}.show[{j}]"
        if role is None:
            roles = ", ".join(r.name for r in scene.roles)
            out.append(Violation(f"{where}.role", f"the {scene.kind} scene has no role "
                                 f"'{entry.role}' (its roles: {roles})"))
            continue
        counts[role.name] = counts.get(role.name, 0) + 1
        low, high = role.size
        if not low <= len(entry.quantities) <= high:
            out.append(Violation(f"{where}.quantities", f"'{role.name}' takes {low}-{high} "
                                 f"quantities, not {len(entry.quantities)}"))
        for name in entry.quantities:
            q = example.quantity(name)
            if q is None:
                out.append(Violation(f"{where}.quantities", f"example '{example.id}' has no "
                                     f"quantity '{name}'"))
            else:
                units.add(q.unit)
    for role in scene.roles:
        low, high = role.entries
        n = counts.get(role.name, 0)
        if not low <= n <= high:
            out.append(Violation(f"{path}.show", f"the {scene.kind} scene needs {low}-{high} "
                                 f"'{role.name}' entr{'y' if high == 1 else 'ies'}, not {n}"))
    if scene.same_unit and len(units) > 1:
        out.append(Violation(f"{path}.show", f"the {scene.kind} scene draws its quantities on "
                             f"one scale, but their units differ ({', '.join(sorted(units))})"))
    out += _grid_size(path, panel, example)
    for field, text in (("caption", panel.caption), ("bubble", panel.bubble or "")):
        for name in placeholders(text):
            if example.quantity(name) is None:
                out.append(Violation(f"{path}.{field}", f"example '{example.id}' has no quantity "
                                     f"{{{name}}} (its: {', '.join(q.name for q in example.quantities)})"))
    return out


def _grid_size(path: str, panel: Panel, example: WorkedExample) -> list[Violation]:
    if panel.scene != "grid":
        return []
    try:
        values = {n: q["value"] for n, q in evaluate_example(example)["quantities"].items()}
    except ExampleError:
        return []  # reported with the example
    out = []
    for entry in panel.show:
        for name in entry.quantities:
            v = values.get(name)
            if v is not None and (v != int(v) or not 0 <= v <= MAX_GRID_SLOTS):
                out.append(Violation(f"{path}.show", f"a grid counts whole slots, 0-"
                                     f"{MAX_GRID_SLOTS}: '{name}' is {v:g}"))
    return out


MIN_EFFECT_ROWS = 2  # a ruler drawn from cited effects compares at least two techniques


def effect_violations(plan: Plan, corpus: Corpus | None) -> list[Violation]:
    """Cited effects: each found in its source, an `amount` only as the quote writes it. A row
    stated only by citations (a field without an engine) gives an effect on each ruler metric
    its sources speak of; a metric they do not is printed "not stated" (the ruler never makes a
    direction up, and a plan is never sent back for lacking a quote that does not exist). A
    measured row (`technique`) may cite what its articles claim on some metrics, and
    `pipeline.simulate.checks.claimed_effects` compares each claim with the sweep."""
    out: list[Violation] = []
    metric_ids = [m.id for m in plan.ruler.metrics]
    for i, concept in enumerate(plan.concepts):
        if not concept.effects:
            continue
        path = f"concepts[{i}]"
        said = [e.metric for e in concept.effects]
        for j, effect in enumerate(concept.effects):
            where = f"{path}.effects[{j}]"
            if effect.metric not in metric_ids:
                out.append(Violation(f"{where}.metric", f"'{effect.metric}' is not a ruler "
                                     f"metric (the ruler's: {', '.join(metric_ids)})"))
            if said.count(effect.metric) > 1:
                out.append(Violation(f"{where}.metric", f"'{effect.metric}' is given twice"))
            if corpus is None:
                continue
            if corpus.source(effect.source) is None:
                out.append(Violation(f"{where}.source", f"unknown source '{effect.source}'"))
            elif corpus.find_quote(effect.source, effect.quote) is None:
                out.append(Violation(f"{where}.quote", f"not found in source '{effect.source}'"))
            elif effect.amount and not all(
                n in normalize_text(effect.quote) for n in QUOTED_NUMBER.findall(effect.amount)
            ):
                out.append(Violation(f"{where}.amount", f"'{effect.amount}' is not written in "
                                     "the quote: copy it from there, or leave it empty"))
    return out


def effect_rows(plan: Plan) -> int:
    return sum(1 for c in plan.concepts if c.effects and not c.technique)
