"""The two handwriting fonts: where they are, how wide a string is, and the embedded subsets.

The files come from the npm registry (`@fontsource/ma-shan-zheng`, `@fontsource/patrick-hand`;
installed by `make setup`, or fetched into the cache on first use: `pipeline.npm`). Text is measured with the same files' advance widths
(fontTools), so layout is right by construction; the page embeds only the glyphs it uses.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from fontTools import subset as ft_subset
from fontTools.merge import Merger
from fontTools.ttLib import TTFont

from pipeline import npm
from pipeline.atomic import write_atomic
from pipeline.errors import EnvironmentMissing
from pipeline.font_grid import EMBED_UPM, IMPLIED_TOLERANCE, coarsen, on_grid
from pipeline.paths import cache_dir

HAND_ZH = "Ma Shan Zheng"
HAND_EN = "Patrick Hand"

# family -> (npm package, pinned version, file-name prefix)
FONT_PACKAGES: dict[str, tuple[str, str, str]] = {
    HAND_ZH: ("@fontsource/ma-shan-zheng", npm.PINNED["@fontsource/ma-shan-zheng"], "ma-shan-zheng"),
    HAND_EN: ("@fontsource/patrick-hand", npm.PINNED["@fontsource/patrick-hand"], "patrick-hand"),
}
# The whole `chinese-simplified` file lacks ~1000 rare characters; the numbered slices have them.
SKIPPED_FILES = re.compile(r"chinese-simplified")
# Width assumed for a character the font lacks (in em): the browser check reports the fallback.
FALLBACK_EM = {"wide": 1.0, "narrow": 0.55}
# The coarsening parameters are part of every cache key: changing them must not reuse old files.
GRID = f"upm{EMBED_UPM}-tol{IMPLIED_TOLERANCE}"
METRICS_FORMAT = 2  # 2: advances on the embedded subsets' grid (font_grid)
# Printable ASCII in the Chinese hand is drawn by the English hand: Ma Shan Zheng's brush digits
# are hard to tell apart (readers took its 4 for a 9, on the numbers a page exists to show). The
# Chinese family embeds those characters from Patrick Hand as a second face of the same family,
# limited to this range, so a text keeps one family and each character is measured in the face
# that draws it. The space stays the Chinese face's: the face that has the space is the family's
# first available font, whose ascent and descent set every text box (the layout's).
LATIN_IN_ZH = (0x21, 0x7E)
LATIN_RANGE_CSS = f"U+{LATIN_IN_ZH[0]:X}-{LATIN_IN_ZH[1]:X}"


def draws_with(ch: str, family: str) -> str:
    """The family whose glyph a character of a text set in `family` is drawn with."""
    if family == HAND_ZH and LATIN_IN_ZH[0] <= ord(ch) <= LATIN_IN_ZH[1]:
        return HAND_EN
    return family


def _runs(text: str, family: str) -> list[tuple[str, str]]:
    """`text` cut into (family, run) pieces by the face that draws each character."""
    out: list[tuple[str, str]] = []
    for ch in text:
        fam = draws_with(ch, family)
        if out and out[-1][0] == fam:
            out[-1] = (fam, out[-1][1] + ch)
        else:
            out.append((fam, ch))
    return out


def missing(text: str, family: str) -> set[str]:
    """Characters of `text` set in `family` that no face of it can draw."""
    return {ch for fam, run in _runs(text, family) for ch in metrics(fam).missing(run)}


def subset_cache_dir() -> Path:
    """Font metrics and subsets computed once per font file and text (content-hashed names)."""
    return cache_dir() / "fonts"


def package_dir(family: str) -> Path:
    """The family's npm package folder, fetched into the cache on first use."""
    return npm.ensure_package(FONT_PACKAGES[family][0])


def font_files(family: str) -> list[Path]:
    """The woff2 files of a family, in a stable order; EnvironmentMissing when not installed."""
    files_dir = package_dir(family) / "files"
    files = sorted(
        (p for p in files_dir.glob("*-400-normal.woff2") if not SKIPPED_FILES.search(p.name)),
        key=lambda p: p.name,
    )
    if not files:
        package = FONT_PACKAGES[family][0]
        raise EnvironmentMissing(
            f"font {family!r} not found in {files_dir}: run `make setup` "
            f"(or `{npm.install_hint(package)}`)"
        )
    return files


def license_text(family: str) -> str:
    path = package_dir(family) / "LICENSE"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def is_wide(ch: str) -> bool:
    return ord(ch) >= 0x2E80


@dataclass
class FontMetrics:
    """Advance widths (in em) of every character a family's files cover, and which file has it."""

    family: str
    advance: dict[str, float] = field(default_factory=dict)
    file_of: dict[str, str] = field(default_factory=dict)

    def covers(self, ch: str) -> bool:
        return ch in self.advance

    def width(self, text: str, size: float) -> float:
        """Width in px of `text` set at `size` px (no kerning: handwriting fonts have little)."""
        total = 0.0
        for ch in text:
            em = self.advance.get(ch)
            if em is None:
                em = FALLBACK_EM["wide" if is_wide(ch) else "narrow"]
            total += em
        return total * size

    def missing(self, text: str) -> set[str]:
        return {ch for ch in text if not ch.isspace() and ch not in self.advance}


def _files_key(files: list[Path]) -> str:
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode())
        h.update(str(p.stat().st_size).encode())
    return h.hexdigest()[:16]


def _read_metrics(files: list[Path]) -> tuple[dict[str, float], dict[str, str]]:
    advance: dict[str, float] = {}
    file_of: dict[str, str] = {}
    for path in files:
        font = TTFont(path, lazy=True)
        upm = font["head"].unitsPerEm
        hmtx = font["hmtx"].metrics
        for code, glyph in font.getBestCmap().items():
            ch = chr(code)
            if ch not in advance:
                advance[ch] = round(on_grid(hmtx[glyph][0], upm), 5)
                file_of[ch] = path.name
        font.close()
    return advance, file_of


@lru_cache(maxsize=4)
def metrics(family: str) -> FontMetrics:
    """Metrics of a family, cached on disk by the files' names and sizes."""
    files = font_files(family)
    key = _files_key(files)
    cache = subset_cache_dir() / f"metrics-{FONT_PACKAGES[family][2]}-{key}-{GRID}.json"
    if cache.exists():
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("format") == METRICS_FORMAT:
            return FontMetrics(family, data["advance"], data["file_of"])
    advance, file_of = _read_metrics(files)
    write_atomic(
        cache, json.dumps({"format": METRICS_FORMAT, "advance": advance, "file_of": file_of})
    )
    return FontMetrics(family, advance, file_of)


def measure(text: str, family: str, size: float) -> float:
    """Width in px of `text` in `family` at `size` px (each character in the face drawing it)."""
    return sum(metrics(fam).width(run, size) for fam, run in _runs(text, family))


@dataclass(frozen=True)
class FontFace:
    """One embedded @font-face: a subset of one source file, limited to the characters used."""

    family: str
    source_file: str
    chars: str
    woff2: bytes
    unicode_range: str = ""  # the Chinese hand's Latin face (LATIN_IN_ZH); else every character

    def css(self) -> str:
        # One face per family holds every glyph the page uses (the Chinese hand has a second,
        # Latin, face, limited by unicode-range): the browser falls back only for characters
        # no face has.
        data = base64.b64encode(self.woff2).decode("ascii")
        limit = f"unicode-range:{self.unicode_range};" if self.unicode_range else ""
        return (
            f"@font-face{{font-family:'{self.family}';font-style:normal;font-weight:400;"
            f"font-display:block;{limit}src:url(data:font/woff2;base64,{data}) format('woff2');}}"
        )


SUBSET_FORMAT = 3  # 2: no build-time timestamp inside the subsets; 3: coarsened (font_grid)


def _subset_file(path: Path, chars: str) -> bytes:
    key_text = f"{SUBSET_FORMAT}:{GRID}:{path.name}:{path.stat().st_size}:{chars}"
    key = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    cache = subset_cache_dir() / f"subset-{key}.woff2"
    if cache.exists():
        return cache.read_bytes()
    options = ft_subset.Options()
    options.flavor = "woff2"
    options.hinting = False
    options.desubroutinize = True
    options.layout_features = ["kern", "liga"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep copyright and licence records (OFL)
    # recalcTimestamp=False: keep the source file's head.modified, so the same text gives the same
    # bytes on every machine (fontTools would stamp the time of the first build into the cache).
    font = TTFont(path, recalcTimestamp=False)
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    coarsen(font)
    buf = io.BytesIO()
    font.flavor = "woff2"
    font.save(buf)
    data = buf.getvalue()
    write_atomic(cache, data)
    return data


def subset_faces(family: str, text: str) -> list[FontFace]:
    """One @font-face holding every character of `text` the family has (merged from the
    family's unicode-range slices: one container instead of one per slice saves ~10%); the
    Chinese hand's printable ASCII comes after it, as a Latin face from the English hand's files
    under the Chinese family's name (`draws_with`; the later face is tried first)."""
    if family == HAND_ZH:
        latin = "".join(sorted({ch for ch in text if draws_with(ch, family) == HAND_EN}))
        faces = _own_faces(family, "".join(ch for ch in text if ch not in latin), space=True)
        for face in _own_faces(HAND_EN, latin, space=False):
            faces.append(FontFace(family, face.source_file, face.chars, face.woff2,
                                  LATIN_RANGE_CSS))
        return faces
    return _own_faces(family, text, space=True)


def _own_faces(family: str, text: str, *, space: bool) -> list[FontFace]:
    m = metrics(family)
    by_file: dict[str, set[str]] = {}
    # The space is embedded with the text: it must not borrow a fallback's space.
    for ch in set(text) | ({" "} if space else set()):
        if ch not in m.file_of or (ch.isspace() and ch != " "):
            continue
        by_file.setdefault(m.file_of[ch], set()).add(ch)
    files = {p.name: p for p in font_files(family)}
    parts = [(files[name], "".join(sorted(by_file[name]))) for name in sorted(by_file)]
    if not parts:
        return []
    chars = "".join(sorted(set().union(*by_file.values())))
    if len(parts) == 1:
        path, part_chars = parts[0]
        return [FontFace(family, path.name, part_chars, _subset_file(path, part_chars))]
    return [FontFace(family, "merged", chars, _merged_subset(parts))]


def _merged_subset(parts: list[tuple[Path, str]]) -> bytes:
    """Subset each slice to its characters, then merge them into one woff2 (cached)."""
    key_text = f"{SUBSET_FORMAT}:{GRID}|" + "|".join(
        f"{p.name}:{p.stat().st_size}:{chars}" for p, chars in parts
    )
    key = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    cache = subset_cache_dir() / f"merged-{key}.woff2"
    if cache.exists():
        return cache.read_bytes()
    with tempfile.TemporaryDirectory(prefix="tujie-fonts-") as tmp:
        ttfs = []
        for i, (path, chars) in enumerate(parts):
            font = TTFont(io.BytesIO(_subset_file(path, chars)), recalcTimestamp=False)
            font.flavor = None
            ttf = Path(tmp) / f"{i}.ttf"
            font.save(ttf)
            ttfs.append(str(ttf))
        merged = Merger().merge(ttfs)
        # The merger stamps head.created/modified with the current time: take the sources' own.
        first = TTFont(ttfs[0], recalcTimestamp=False)
        merged["head"].created = first["head"].created
        merged["head"].modified = first["head"].modified
        merged.recalcTimestamp = False
        merged.flavor = "woff2"
        buf = io.BytesIO()
        merged.save(buf)
    data = buf.getvalue()
    write_atomic(cache, data)
    return data
