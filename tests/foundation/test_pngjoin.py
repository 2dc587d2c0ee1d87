"""Joining separately compressed bands into one PNG (pipeline.check.pngjoin): any split of any
picture decodes (by Pillow) to the picture, and the Adler-32 arithmetic is zlib's."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pipeline.check import pngjoin


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 40),
    width=st.integers(1, 30),
    channels=st.sampled_from([3, 4]),
    cuts=st.lists(st.integers(1, 39), max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_split_joins_to_the_same_picture(
    rows: int, width: int, channels: int, cuts: list[int], seed: int
) -> None:
    pixels = np.random.default_rng(seed).integers(0, 256, (rows, width, channels), np.uint8)
    edges = sorted({0, rows, *(c for c in cuts if c < rows)})
    bands = [
        pngjoin.Band.from_bytes(pngjoin.compress_band(pixels[a:b]).to_bytes())
        for a, b in zip(edges, edges[1:], strict=False)
    ]
    with Image.open(io.BytesIO(pngjoin.join(bands))) as image:
        image.load()  # Pillow checks every chunk's CRC as it reads
        assert np.array_equal(np.asarray(image), pixels)


@given(st.binary(max_size=300), st.binary(max_size=300))
def test_adler32_combine_is_zlibs(first: bytes, second: bytes) -> None:
    combined = pngjoin.adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


def test_bands_of_different_widths_are_refused() -> None:
    a = pngjoin.compress_band(np.zeros((2, 3, 3), np.uint8))
    b = pngjoin.compress_band(np.zeros((2, 4, 3), np.uint8))
    with pytest.raises(ValueError, match="different widths"):
        pngjoin.join([a, b])


def test_foreign_bytes_are_not_a_band() -> None:
    with pytest.raises(pngjoin.BandFormatError):
        pngjoin.Band.from_bytes(b"\x89PNG not a band")


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 30),
    width=st.integers(1, 20),
    cuts=st.lists(st.integers(1, 29), max_size=5),
    seed=st.integers(0, 2**32 - 1),
)
def test_up_filtered_png_is_cut_without_decoding(
    rows: int, width: int, cuts: list[int], seed: int
) -> None:
    """Chromium's fast PNG (every row filtered Up) cut into bands by its filtered rows joins to
    the same picture as cutting its decoded pixels."""
    pixels = np.random.default_rng(seed).integers(0, 256, (rows, width, 3), np.uint8)
    up = pngjoin.up_filter(pixels)
    png = pngjoin.join(
        [pngjoin.Band(width, rows, 3, zlib.adler32(up.tobytes()), up.size, _deflate(up.tobytes()))]
    )
    found = pngjoin.up_filtered_rows(png)
    assert found is not None
    edges = sorted({0, rows, *(c for c in cuts if c < rows)})
    spans = list(zip(edges, edges[1:], strict=False))
    with Image.open(io.BytesIO(pngjoin.join(pngjoin.bands_from_up_rows(*found, spans)))) as im:
        assert np.array_equal(np.asarray(im), pixels)


def test_a_png_with_other_filters_is_not_taken_for_up_filtered() -> None:
    """Our own bands start with a row filtered None: such a PNG must go through Pillow."""
    pixels = np.arange(60, dtype=np.uint8).reshape(4, 5, 3)
    assert pngjoin.up_filtered_rows(pngjoin.join([pngjoin.compress_band(pixels)])) is None
    assert pngjoin.up_filtered_rows(b"GIF89a") is None


def _deflate(raw: bytes) -> bytes:
    packer = zlib.compressobj(1, zlib.DEFLATED, -15)
    return packer.compress(raw) + packer.flush(zlib.Z_SYNC_FLUSH)
