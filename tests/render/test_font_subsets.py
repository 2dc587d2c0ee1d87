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
    (face,) = fonts.subset_faces(family, TEXT)
    font = TTFont(BytesIO(face.woff2))
    assert font["head"].unitsPerEm == EMBED_UPM
    cmap, hmtx = font.getBestCmap(), font["hmtx"].metrics
    m = fonts.metrics(family)
    for ch in set(TEXT) & set(face.chars):
        assert m.advance[ch] == hmtx[cmap[ord(ch)]][0] / EMBED_UPM, ch
    hhea = font["hhea"]
    assert vertical_metrics(family) == (hhea.ascent / EMBED_UPM, -hhea.descent / EMBED_UPM)
