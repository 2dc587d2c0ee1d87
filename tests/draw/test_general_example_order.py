"""A worked example keeps the order its plan declares through the stored JSON (which sorts its
keys), so the walkthrough's table of two examples lists the quantities as the plan tells them,
not in the alphabetical order of their names."""

from __future__ import annotations

import json

from pipeline.fields.general import compare_rows
from pipeline.fields.general.example import ExampleView, evaluate_example
from pipeline.plan.model import Concept, Panel, Quantity, ShowRole, WorkedExample

DECLARED = ["principal", "fee", "final"]  # not alphabetical


def _stored(eid: str, fee: float) -> ExampleView:
    example = WorkedExample(id=eid, title=eid, quantities=[
        Quantity(name="principal", label="本金", unit="元", kind="illustrative", value=100),
        Quantity(name="fee", label="费率", unit="%", kind="illustrative", value=fee),
        Quantity(name="final", label="终值", unit="元", kind="derived",
                 formula="principal * (1 - fee / 100)"),
    ])
    # as the sim stage writes and the renderer reads it back
    data = json.loads(json.dumps(evaluate_example(example), sort_keys=True))
    assert list(data["quantities"]) == sorted(DECLARED)
    return ExampleView.from_json(data)


def test_the_view_keeps_the_declared_order() -> None:
    assert list(_stored("high", 1).quantities) == DECLARED


def test_the_table_of_two_examples_follows_the_declared_order() -> None:
    high, low = _stored("high", 1), _stored("low", 0.1)
    concept = Concept(
        id="fees", field="general", name="费率", name_en="fees", problem_left="x", body="x",
        trouble=Panel(caption="x", scene="before_after", example="high",
                      show=[ShowRole(role="before", quantities=["principal"])]),
        fix=Panel(caption="x", scene="before_after", example="low"), solves="x", costs="x",
    )
    rows = compare_rows(concept, high, low)
    assert [r.label for r in rows] == ["本金 (元)", "费率 (%)", "终值 (元)"]
    assert [(r.without, r.with_) for r in rows][1:] == [("1", "0.1"), ("99", "99.9")]


def test_the_table_of_two_examples_leaves_out_what_is_equal_and_undrawn() -> None:
    """Equal in both examples and in no picture (the same principal here): nothing to compare,
    so no row; with nothing different at all, every row stays."""
    high, low = _stored("high", 1), _stored("low", 0.1)
    concept = Concept(
        id="fees", field="general", name="费率", name_en="fees", problem_left="x", body="x",
        trouble=Panel(caption="x", scene="before_after", example="high"),
        fix=Panel(caption="x", scene="before_after", example="low"), solves="x", costs="x",
    )
    assert [r.label for r in compare_rows(concept, high, low)] == ["费率 (%)", "终值 (元)"]
    assert len(compare_rows(concept, high, _stored("low", 1))) == 3
