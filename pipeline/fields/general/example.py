"""A worked example evaluated: every quantity's number, given ones as declared and derived ones
computed from their formulas in dependency order (`pipeline.fields.general.formula`).

`evaluate_example` turns a plan's `WorkedExample` into the JSON the sim stage stores (the
general field's "run": `sim/general:<id>.json`); `ExampleView` is what the general scenes read.
A panel's caption binds `{name}` to the number as the page writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.fields.general.formula import (
    FormulaError,
    evaluate,
    names,
    number_text,
    parse,
    render,
)
from pipeline.plan.model import WorkedExample

Json = Any


class ExampleError(ValueError):
    """A worked example that cannot be computed: names the quantity and the reason."""

    def __init__(self, quantity: int, message: str):
        self.quantity = quantity  # its index in the example's quantities
        super().__init__(message)


def derivation_order(example: WorkedExample) -> list[str]:
    """The quantities' names so that each derived one comes after what its formula reads;
    ExampleError for an unknown name or a cycle."""
    index = {q.name: j for j, q in enumerate(example.quantities)}
    reads: dict[str, list[str]] = {}
    for j, q in enumerate(example.quantities):
        if q.kind != "derived":
            reads[q.name] = []
            continue
        try:
            reads[q.name] = names(parse(q.formula))
        except FormulaError as err:
            raise ExampleError(j, f"formula '{q.formula}': {err}") from None
        for name in reads[q.name]:
            if name not in index:
                raise ExampleError(j, f"formula '{q.formula}' reads '{name}', which this example "
                                   "does not declare")
    order: list[str] = []
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            loop = " -> ".join([*path[path.index(name):], name])
            raise ExampleError(index[name], f"the formulas go round in a circle ({loop})")
        state[name] = "open"
        for dep in reads[name]:
            visit(dep, [*path, name])
        state[name] = "done"
        order.append(name)

    for q in example.quantities:
        visit(q.name, [])
    return order


def evaluate_example(example: WorkedExample) -> Json:
    """Every quantity's value, the derived ones computed by tujie; ExampleError naming the
    quantity when a formula cannot be computed."""
    values: dict[str, float] = {}
    by_name = {q.name: q for q in example.quantities}
    index = {q.name: j for j, q in enumerate(example.quantities)}
    worked: dict[str, str] = {}
    for name in derivation_order(example):
        q = by_name[name]
        if q.kind != "derived":
            values[name] = float(q.value)
            continue
        tree = parse(q.formula)
        try:
            values[name] = evaluate(tree, values)
        except FormulaError as err:
            raise ExampleError(index[name], f"formula '{q.formula}': {err}") from None
        worked[name] = (
            f"{render(tree, lambda n: by_name[n].label)} = "
            f"{render(tree, lambda n: number_text(values[n]))} = {number_text(values[name])}"
        )
    return {
        "id": example.id,
        "title": example.title,
        "quantities": {
            q.name: {
                "label": q.label,
                "unit": q.unit,
                "kind": q.kind,
                "value": values[q.name],
                "text": number_text(values[q.name]),
                "formula": q.formula,
                "worked": worked.get(q.name, ""),
            }
            for q in example.quantities
        },
        "order": [n for n in derivation_order(example) if by_name[n].kind == "derived"],
        # the declared order: the stored JSON sorts the `quantities` keys alphabetically
        "names": [q.name for q in example.quantities],
    }


@dataclass(frozen=True)
class QuantityView:
    name: str
    label: str
    unit: str
    kind: str  # quoted | illustrative | derived
    value: float
    text: str  # the number as the page writes it
    worked: str = ""  # "left = 3000 − 1000 = 2000" for a derived one
    formula: str = ""  # a derived one's formula (what its walkthrough strip draws as inputs)


@dataclass(frozen=True)
class ExampleView:
    """A worked example as the general scenes read it."""

    id: str
    title: str
    quantities: Mapping[str, QuantityView]
    order: tuple[str, ...] = ()  # the derived quantities, in the order they are computed

    def get(self, name: str) -> QuantityView | None:
        return self.quantities.get(name)

    @property
    def illustrative(self) -> bool:
        return any(q.kind == "illustrative" for q in self.quantities.values())

    @classmethod
    def from_json(cls, data: Json) -> ExampleView:
        """The view of an evaluated example, its quantities in the order the plan declares them
        (what a table of them lists), not the stored JSON's alphabetical key order."""
        stored = data["quantities"]
        names = [n for n in data.get("names", ()) if n in stored]
        names += [n for n in stored if n not in names]
        return cls(
            str(data["id"]),
            str(data["title"]),
            {
                name: QuantityView(name, q["label"], q["unit"], q["kind"], float(q["value"]),
                                   q["text"], q.get("worked", ""), q.get("formula", ""))
                for name, q in ((n, stored[n]) for n in names)
            },
            tuple(data.get("order", ())),
        )

    def quoted_only(self, shown: Iterable[str]) -> bool:
        """True when every one of `shown` (the numbers a panel writes) is quoted from an
        article or computed from quoted ones alone: such a panel's numbers are the article's,
        and its tag says so instead of "illustrative"."""
        seen: dict[str, bool] = {}

        def quoted(name: str) -> bool:
            q = self.quantities.get(name)
            if name not in seen and q is not None:
                seen[name] = False  # a cycle (never in a validated plan) counts as illustrative
                if q.kind == "derived":
                    inputs = [n for n in names(parse(q.formula)) if n in self.quantities]
                    seen[name] = bool(inputs) and all(quoted(n) for n in inputs)
                else:
                    seen[name] = q.kind == "quoted"
            return seen.get(name, False)

        wanted = list(shown)
        return bool(wanted) and all(quoted(n) for n in wanted)

    def values(self) -> dict[str, str]:
        """What a caption's `{name}` becomes: the number as the page writes it."""
        return {name: q.text for name, q in self.quantities.items()}
