"""The training field's numbers as the review lists them: every number a panel's run offers
its caption, with the placeholder's meaning as its label and its unit ("pipeline GPU 0's memory
at its fullest 76 GB")."""

from __future__ import annotations

from pipeline.fields.training.catalogue import clock_of, placeholder_meaning
from pipeline.fields.training.values import training_values
from pipeline.fields.training.view import Json, TrainingView


def shown_numbers(result: Json) -> list[tuple[str, str, str, str]]:
    """(key, label, value, unit) of every number the run offers the page."""
    view = TrainingView.from_json(result)
    clock = clock_of(view)
    out = []
    for key, value in training_values(view).items():
        meaning, unit = placeholder_meaning(key, clock)
        out.append((key, meaning, value, unit))
    return out
