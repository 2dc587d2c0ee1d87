"""Typed checks for workload JSON values; each failure is a `WorkloadError` naming the path."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sim.errors import WorkloadError


def check_fields(data: Any, allowed: tuple[str, ...], path: str) -> Mapping[str, Any]:
    """An object whose keys are all in `allowed`."""
    if not isinstance(data, Mapping):
        raise WorkloadError(path or "$", "must be an object")
    for key in data:
        if key not in allowed:
            where = f"{path}.{key}" if path else str(key)
            raise WorkloadError(where, f"unknown field (allowed: {', '.join(allowed)})")
    return data


def expect_int(value: Any, path: str, minimum: int | None = None) -> int:
    """An integer (not a bool) at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise WorkloadError(path, "must be an integer")
    if minimum is not None and value < minimum:
        problem = "must not be negative" if minimum == 0 else f"must be >= {minimum}"
        raise WorkloadError(path, problem)
    return value


def expect_number(value: Any, path: str, minimum: float | None = None) -> float:
    """A finite number (not a bool) at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WorkloadError(path, "must be a finite number")
    try:
        value = float(value)
    except OverflowError as err:  # an integer with hundreds of digits
        raise WorkloadError(path, "must be a finite number (this one is too large)") from err
    if not math.isfinite(value):
        raise WorkloadError(path, "must be a finite number")
    if minimum is not None and value < minimum:
        raise WorkloadError(
            path, "must not be negative" if minimum == 0 else f"must be >= {minimum}"
        )
    return value


def expect_choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    """One of `choices`."""
    if value not in choices:
        raise WorkloadError(path, f"must be one of {', '.join(choices)}")
    return str(value)
