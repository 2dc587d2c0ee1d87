"""One PNG out of horizontal bands compressed independently, joined without re-encoding.

The check keeps each band of a screenshot compressed on its own (`pipeline.check.bands`), so a
page whose bands mostly did not change is written by concatenating stored bytes instead of
decoding and re-encoding 20 million pixels. What makes that valid PNG:
  - a band's first row uses filter 0 (None) and its other rows filter 2 (Up), so no row refers
    to a row of another band;
  - each band is a raw deflate stream ended by a sync flush (byte-aligned, not final, and with no
    back-reference before its own start: every band has its own compressor), so the bands' bytes
    concatenated, then one empty final block, form one deflate stream;
  - the zlib trailer's Adler-32 of all the rows is combined from the bands' own checksums
    (`adler32_combine`, the arithmetic of zlib's function of that name, which Python's zlib
    module does not expose).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

try:  # ISA-L's deflate: the same streams as zlib's, several times faster (see pyproject)
    from isal import isal_zlib as deflate
except ImportError:  # pragma: no cover - a platform without its wheel still works, slower
    deflate = zlib  # type: ignore[misc]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KiB window, "fastest" level hint
FINAL_EMPTY_BLOCK = b"\x03\x00"  # a final fixed-Huffman block holding only end-of-block
ADLER_BASE = 65521
LEVEL = 1  # zlib's fastest: screenshots are mostly flat colour, the Up filter leaves zeros
FILTER_NONE, FILTER_UP = 0, 2
COLOUR_TYPES = {3: 2, 4: 6}  # channels -> PNG colour type (RGB, RGBA)
_HEADER = struct.Struct(">4sIIBII")  # magic, width, rows, channels, adler, raw length
MAGIC = b"TJB1"


class BandFormatError(ValueError):
    """Stored band bytes that are not a band this module wrote."""


@dataclass(frozen=True)
class Band:
    """One compressed band: its size, the Adler-32 and length of its filtered rows, the bytes."""

    width: int
    rows: int
    channels: int
    adler: int
    raw_length: int
    data: bytes

    def to_bytes(self) -> bytes:
        head = _HEADER.pack(
            MAGIC, self.width, self.rows, self.channels, self.adler, self.raw_length
        )
        return head + self.data

    @classmethod
    def from_bytes(cls, blob: bytes) -> Band:
        if len(blob) < _HEADER.size or blob[:4] != MAGIC:
            raise BandFormatError("not a stored screenshot band")
        _magic, width, rows, channels, adler, raw = _HEADER.unpack_from(blob)
        if channels not in COLOUR_TYPES or raw != rows * (width * channels + 1):
            raise BandFormatError("a stored screenshot band with an impossible size")
        return cls(width, rows, channels, adler, raw, blob[_HEADER.size :])


def up_filter(pixels: np.ndarray) -> np.ndarray:
    """`pixels` (rows x width x 3 or 4, uint8) as PNG rows filtered Up, filter byte first:
    what Chromium's fast PNG holds, and what `bands_from_up_rows` cuts."""
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in COLOUR_TYPES:
        raise ValueError(f"expected rows x width x 3|4 uint8 pixels, got {pixels.shape}")
    rows, width, channels = pixels.shape
    filtered = np.empty((rows, width * channels + 1), np.uint8)
    flat = pixels.reshape(rows, width * channels)
    filtered[:, 0] = FILTER_UP
    filtered[0, 1:] = flat[0]  # the row above the first is zeros
    np.subtract(flat[1:], flat[:-1], out=filtered[1:, 1:])  # uint8 wraps: PNG's modulo 256
    return filtered


def compress_band(pixels: np.ndarray) -> Band:
    """`pixels` (rows x width x 3 or 4, uint8) as a band that `join` can place anywhere."""
    return bands_from_up_rows(up_filter(pixels), pixels.shape[2], [(0, pixels.shape[0])])[0]


def up_filtered_rows(png: bytes) -> tuple[np.ndarray, int] | None:
    """The filtered rows (rows x (1 + width x channels)) and channel count of a PNG that is
    8-bit RGB or RGBA, not interlaced, every row filtered Up (Chromium's fast PNG is); else
    None. Such rows are cut into bands without decoding a pixel (`bands_from_up_rows`)."""
    if not png.startswith(PNG_SIGNATURE):
        return None
    pos, header, idat = len(PNG_SIGNATURE), b"", []
    while pos + 8 <= len(png):
        (length,) = struct.unpack_from(">I", png, pos)
        kind = png[pos + 4 : pos + 8]
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    if len(header) != 13:
        return None
    width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", header)
    channels = {v: k for k, v in COLOUR_TYPES.items()}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        return None
    try:
        raw = deflate.decompress(b"".join(idat))
    except Exception:  # noqa: BLE001 - zlib.error or ISA-L's IsalError: a PNG to leave to Pillow
        return None
    stride = 1 + width * channels
    if len(raw) != height * stride:
        return None
    rows = np.frombuffer(raw, np.uint8).reshape(height, stride)
    if not (rows[:, 0] == FILTER_UP).all():
        return None
    return rows, channels


def bands_from_up_rows(
    rows: np.ndarray, channels: int, cuts: Sequence[tuple[int, int]]
) -> list[Band]:
    """Bands of the Up-filtered `rows` (see `up_filtered_rows`) at `cuts` ([top, bottom) row
    pairs, in order): each band's first row gets its pixels back (the running sum of the deltas
    above it, modulo 256) and filter None; its other rows stay as they are."""
    out: list[Band] = []
    width = (rows.shape[1] - 1) // channels
    above = np.zeros(rows.shape[1] - 1, np.uint8)  # sum of the deltas of rows [done, top)
    done = 0
    for top, bottom in cuts:
        above += rows[done:top, 1:].sum(axis=0, dtype=np.uint8)
        band = rows[top:bottom].copy()
        band[0, 0] = FILTER_NONE
        band[0, 1:] += above  # row `top`'s delta plus everything above it: its pixels
        done = top
        out.append(_band(band.tobytes(), width, bottom - top, channels))
    return out


def _band(raw: bytes, width: int, rows: int, channels: int) -> Band:
    packer = deflate.compressobj(LEVEL, deflate.DEFLATED, -15)
    data = packer.compress(raw) + packer.flush(deflate.Z_SYNC_FLUSH)
    return Band(width, rows, channels, zlib.adler32(raw), len(raw), data)


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of A + B from the Adler-32s of A and B and B's length (as zlib does it)."""
    rem = second_length % ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % ADLER_BASE
    sum1 += (second & 0xFFFF) + ADLER_BASE - 1
    sum2 += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + ADLER_BASE - rem
    sum1 %= ADLER_BASE
    sum2 %= ADLER_BASE
    return sum1 | (sum2 << 16)


def join(bands: Sequence[Band]) -> bytes:
    """The PNG whose rows are the bands' rows, top to bottom."""
    if not bands:
        raise ValueError("no bands to join")
    width, channels = bands[0].width, bands[0].channels
    if any(b.width != width or b.channels != channels for b in bands):
        raise ValueError("bands of different widths or colour types cannot be joined")
    adler = 1  # the Adler-32 of nothing
    for band in bands:
        adler = adler32_combine(adler, band.adler, band.raw_length)
    stream = b"".join(
        [ZLIB_HEADER, *(b.data for b in bands), FINAL_EMPTY_BLOCK, struct.pack(">I", adler)]
    )
    rows = sum(b.rows for b in bands)
    header = struct.pack(">IIBBBBB", width, rows, 8, COLOUR_TYPES[channels], 0, 0, 0)
    return b"".join([PNG_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", stream),
                     _chunk(b"IEND", b"")])


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(body, zlib.crc32(kind))
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
