"""Embedded font subsets are the same bytes on every machine: fontTools stamps the save time into
`head.modified` unless told not to, and the first build's time then lived on in each cache. Two
fresh caches at very different clocks (SOURCE_DATE_EPOCH, which fontTools reads) must agree."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from pipeline import fonts, npm
from pipeline.draw.layout import vertical_metrics
from pipeline.font_grid import EMBED_UPM

TEXT = "KV 缓存把旧 token 的键和值存起来 · Patrick Hand 0123"


@pytest.mark.parametrize("family", [fonts.HAND_ZH, fonts.HAND_EN])
def test_subsets_do_not_depend_on_when_they_were_made(
    family: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUJIE_NPM_DIR", str(npm.npm_dir()))  # the fonts already set up
    made = []
    for epoch in ("100000000", "2000000000"):
        monkeypatch.setenv("TUJIE_CACHE", str(tmp_path / epoch))
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        made.append([face.woff2 for face in fonts.subset_faces(family, TEXT)])
    assert made[0] and made[0] == made[1]


@pytest.mark.parametrize("family", [fonts.HAND_ZH, fonts.HAND_EN])
def test_layout_measures_with_the_embedded_subsets_advances(family: str) -> None:
    """The subsets are rescaled to a coarser em (font_grid): the layout's advance widths and
    vertical metrics must be the embedded font's own, not the source file's, to the last unit."""
    faces = fonts.subset_faces(family, TEXT)
    for face in faces:
        font = TTFont(BytesIO(face.woff2))
        assert font["head"].unitsPerEm == EMBED_UPM
        cmap, hmtx = font.getBestCmap(), font["hmtx"].metrics
        drawn_by = fonts.HAND_EN if face.unicode_range else family
        m = fonts.metrics(drawn_by)
        for ch in set(TEXT) & set(face.chars):
            assert m.advance[ch] == hmtx[cmap[ord(ch)]][0] / EMBED_UPM, ch
            assert fonts.measure(ch, family, 10.0) == pytest.approx(m.advance[ch] * 10.0), ch
    font = TTFont(BytesIO(faces[0].woff2))
    hhea = font["hhea"]
    assert vertical_metrics(family) == (hhea.ascent / EMBED_UPM, -hhea.descent / EMBED_UPM)


def test_the_chinese_hand_draws_latin_with_the_english_hands_glyphs() -> None:
    """Ma Shan Zheng's brush digits read wrongly (a 4 as a 9): in the Chinese hand, printable
    ASCII but the space is a second face of the same family made from Patrick Hand's glyphs, limited by
    unicode-range and declared after the Chinese face; the Chinese face carries none of it."""
    zh, latin = fonts.subset_faces(fonts.HAND_ZH, TEXT)
    assert latin.family == zh.family == fonts.HAND_ZH
    assert latin.unicode_range == "U+21-7E" and "unicode-range:U+21-7E" in latin.css()
    ascii_used = {ch for ch in TEXT if "!" <= ch <= "~"}
    assert set(latin.chars) == ascii_used
    assert not set(zh.chars) & ascii_used and "缓" in zh.chars
    # the space stays in the Chinese face: the face with the space sets the family's line box
    assert " " in zh.chars and " " not in latin.chars
    drawn = TTFont(BytesIO(latin.woff2)).getBestCmap()
    patrick = fonts.metrics(fonts.HAND_EN)
    assert all(ord(ch) in drawn for ch in ascii_used)
    assert fonts.measure("4", fonts.HAND_ZH, 10.0) == pytest.approx(patrick.advance["4"] * 10.0)
