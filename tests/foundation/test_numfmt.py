"""One rule for the numbers the page writes (captions, scene labels, tables): one decimal, halves
rounded up whatever their binary spelling (a reader saw 1.25 written 1.2 beside 4.75 written 4.8)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from hypothesis import given
from hypothesis import strategies as st

from pipeline.artifacts.sim import format_number
from pipeline.draw.scene import fmt
from pipeline.fields.training.values import number
from pipeline.numfmt import one_decimal


@given(st.integers(-10**6, 10**6))
def test_hundredths_round_half_up_as_written(k: int) -> None:
    value = k / 100
    want = Decimal(k).scaleb(-2).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    text = one_decimal(value)
    assert Decimal(text) == want
    assert not text.endswith(".0") and text != "-0"


def test_halves_go_up_whichever_way_binary_rounding_would() -> None:
    assert [one_decimal(v) for v in (1.25, 4.75, 2.35, 0.05, -1.25)] == [
        "1.3", "4.8", "2.4", "0.1", "-1.3"]
    assert one_decimal(-0.04) == "0" and one_decimal(7.0) == "7"


def test_captions_scenes_and_training_tables_write_numbers_alike() -> None:
    for v in (1.25, 15.75, 0.049, 2.0, 1875.0):
        assert fmt(v) == format_number(v) == number(v) == one_decimal(v)
    assert format_number(None) == "?"
