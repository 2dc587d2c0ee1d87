"""How the page writes a computed number: whole numbers as integers, others to one decimal,
small enough to check by hand — the same rule for captions, scene labels and tables.

Halves round up (1.25 → 1.3, 4.75 → 4.8): Python's `round` sends an exact binary half to the
even digit (1.25 → 1.2 but 4.75 → 4.8), and a reader who saw both on one page could not tell
which way the page rounds. The number is read as its shortest decimal spelling first, so 2.35
(stored as 2.34999…) is 2.4 as written.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

TENTH = Decimal("0.1")


def one_decimal(value: float) -> str:
    """`value` with one decimal, half up, a trailing .0 dropped (-0 is 0)."""
    rounded = Decimal(repr(float(value))).quantize(TENTH, rounding=ROUND_HALF_UP)
    if rounded == rounded.to_integral_value():
        return str(int(rounded))
    return f"{rounded:.1f}"
