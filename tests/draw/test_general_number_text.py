"""The general field writes a computed number so that a worked step stays true: a factor below 1
keeps its digits (0.999, not 1), numbers of 1 and more keep at most two decimals."""

from __future__ import annotations

import pytest

from pipeline.fields.general.example import evaluate_example
from pipeline.fields.general.formula import number_text
from pipeline.plan.model import Quantity, WorkedExample


@pytest.mark.parametrize(("value", "text"), [
    (0.999, "0.999"), (0.99, "0.99"), (0.5, "0.5"), (0.07 / 12, "0.00583"), (-0.999, "-0.999"),
    (1.07, "1.07"), (761225.5042, "761225.5"), (563078.7897, "563078.79"), (3000.0, "3000"),
    (0.0, "0"),
])
def test_number_text_keeps_a_small_factor_and_two_decimals_above_one(value: float,
                                                                     text: str) -> None:
    assert number_text(value) == text


def test_a_worked_step_with_a_factor_below_one_is_written_true() -> None:
    example = WorkedExample(id="fee", title="fee", quantities=[
        Quantity(name="fee", label="fee", unit="%", kind="illustrative", value=0.1),
        Quantity(name="keep", label="kept", kind="derived", formula="1 - fee / 100"),
    ])
    keep = evaluate_example(example)["quantities"]["keep"]
    assert keep["text"] == "0.999"
    assert keep["worked"].endswith("= 0.999"), keep["worked"]
