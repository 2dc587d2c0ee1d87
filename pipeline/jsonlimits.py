"""JSON that comes from outside (plan.json, a model's reply, a cached reply) read within limits.

Python's `json` recurses once per level: a document nested 100,000 deep raises RecursionError,
and one nested a few hundred deep parses but then breaks whatever walks it next (`json.dumps`,
a path built per level). `loads` refuses both as `JSONRefused`, as it does an integer too long
for Python to convert; `nesting_depth` measures decoded data without recursing. Numbers that are
not finite (NaN, Infinity, 1e400) are kept as `NonFinite`, so the plan check can name them with
their JSON path and the literal the file wrote.
"""

from __future__ import annotations

import json
import math
from typing import Any

# Python converts integers of up to this many digits (`sys.get_int_max_str_digits`).
MAX_INT_DIGITS = 4300
# A plan is 6 levels deep (plan → concepts → concept → panel → knobs → knob); a model's reply
# wraps it in a few more. Anything past this is not a plan.
MAX_JSON_DEPTH = 64


class JSONRefused(ValueError):
    """Valid JSON syntax, but outside the limits (nesting, number length); the message says
    which. A ValueError, so code that treats unreadable JSON as damaged treats this alike."""


class NonFinite(float):
    """A number the text wrote as NaN, Infinity or 1e400 (which overflows to infinity): still a
    float, so it is refused where its field is checked, with the literal as written."""

    literal: str

    def __new__(cls, value: float, literal: str) -> NonFinite:
        number = super().__new__(cls, value)
        number.literal = literal
        return number


def _float(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else NonFinite(value, text)


def _constant(name: str) -> float:
    return NonFinite(float(name), name)  # "NaN", "Infinity", "-Infinity"


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONRefused(f"a number of {len(text):,} digits (at most {MAX_INT_DIGITS:,})")
    return int(text)


def loads(text: str | bytes) -> Any:
    """`json.loads`, refusing (`JSONRefused`) data nested deeper than MAX_JSON_DEPTH and numbers
    Python will not convert; `json.JSONDecodeError` for text that is not JSON."""
    try:
        data = json.loads(text, parse_float=_float, parse_constant=_constant, parse_int=_int)
    except RecursionError:
        raise JSONRefused(too_deep()) from None
    if nesting_depth(data) > MAX_JSON_DEPTH:
        raise JSONRefused(too_deep())
    return data


def nesting_depth(data: object, stop_above: int = MAX_JSON_DEPTH) -> int:
    """How many arrays/objects deep `data` goes (a scalar is 0), counted without recursion; the
    count stops at `stop_above` + 1, so a pathological value costs no more than that."""
    deepest = 0
    stack: list[tuple[object, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            if depth > stop_above:
                return depth
            deepest = max(deepest, depth)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth) for child in children)
    return deepest


def too_deep() -> str:
    return f"nested more than {MAX_JSON_DEPTH} levels deep (a plan needs fewer than 10)"
