"""P16: a text a drawing places is drawn in ONE handwriting font, all of it. A character that
font lacks would be drawn by the browser in a fallback font, which the page check refuses after
the plan is accepted (played as a model on a saved training article: "每秒 … 个令牌 · MFU" put a
middle dot, which Ma Shan Zheng lacks, into a training panel). The layout refuses it first, at the
text, so the validator can send a plan's text back with its path."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pipeline import fonts
from pipeline.draw import FitError
from pipeline.draw.layout import TextLayout
from pipeline.render.page import _cell


def _layout() -> TextLayout:
    return TextLayout("t", 400, 200, 8, "zh", owner="card c, panel trouble")


def test_a_character_the_font_lacks_is_refused_by_name() -> None:
    assert "·" not in fonts.metrics(fonts.HAND_ZH).advance  # why this character is the example
    with pytest.raises(FitError) as err:
        _layout().place("每秒 53350 个 · 满", x=200, cy=100, role="caption", size=16)
    said = str(err.value)
    assert "card c, panel trouble" in said and "'·' (U+00B7)" in said
    assert fonts.HAND_ZH in said and err.value.text == "每秒 53350 个 · 满"


def test_the_same_words_without_it_are_placed() -> None:
    placed = _layout().place("每秒 53350 个，满", x=200, cy=100, role="caption", size=16)
    assert placed.box.x1 > placed.box.x0


def test_an_optional_text_with_a_missing_character_is_left_out() -> None:
    layout = _layout()
    assert layout.try_place("a · b 中", x=200, cy=100, role="tick", size=12) is None
    assert layout.counter == 0


@pytest.mark.parametrize(("value", "families"), [
    ("76", ["Patrick Hand"]),
    ("装得下", ["Ma Shan Zheng"]),
    ("87.5 GB 装不下", ["Patrick Hand", "Ma Shan Zheng"]),
])
def test_a_table_cell_is_set_in_the_hand_that_has_its_glyphs(value: str,
                                                             families: list[str]) -> None:
    spans = BeautifulSoup(str(_cell(value)), "html.parser").select("span[data-font]")
    assert [s["data-font"] for s in spans] == families
    assert "".join(s.get_text() for s in spans).replace(" ", "") == value.replace(" ", "")


def test_validate_sends_such_a_caption_back_with_its_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import shutil
    from pathlib import Path

    from tests.tujie_process import one_error_line, tujie

    src = tmp_path / "household"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "household-budget", src)
    plan = json.loads((src / "plan.json").read_text(encoding="utf-8"))
    plan["concepts"][0]["trouble"]["caption"] = "收入·支出"
    (src / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    result = tujie("validate", str(src))
    assert result.returncode == 2
    line = one_error_line(result.stderr)
    assert "concepts[0].trouble.caption" in line and "'·' (U+00B7)" in line
