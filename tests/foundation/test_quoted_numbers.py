"""The numbers a quoted worked-example quantity may take are the ones its passage writes, read
as written (play-the-model finding: "before it (1, 263)" read as 1263 once whitespace was
dropped for the loose quote comparison, and "1 plus -79.3" lost its minus sign, so an honest
plan quoting 1, 263 and -79.3 was refused three times)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.fields.general.rules import numbers_of


def test_a_list_of_numbers_reads_as_its_numbers() -> None:
    assert numbers_of("the weight and error before it (1, 263):") == [1, 263]
    assert numbers_of("3,000 元和 12,500.5 元") == [3000, 12500.5]


def test_a_minus_sign_is_read_but_a_range_dash_is_not() -> None:
    assert numbers_of("Let's see, 1 plus -79.3 is -78.3.") == [1, -79.3, -78.3]
    assert numbers_of("气温 −5 度（-3）") == [-5, -3]
    assert numbers_of("slower by 20-26%, GPT-3 and v-2") == [20, 26, 3, 2]


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=6))
def test_numbers_listed_with_commas_and_spaces_read_back(values: list[int]) -> None:
    text = "(" + ", ".join(str(v) for v in values) + ")"
    assert numbers_of(text) == values
