"""Which blocks have the same markup on both pages: each card's `<article data-card>` and each
part's `<section data-section>` (without its cards), found by the hooks of templates/MARKUP.md,
and everything around them (styles, symbols, scripts). When the rest of the page is the same and
a block's markup is too, the block renders the same wherever it lands: its moved pixels differ
only by re-rasterisation (an SVG drawn at a fractional offset, the background grid shifted
behind it), so the review calls it moved without judging those pixels.

The embedded font subset follows the page's characters and the CSP follows the stylesheet, so
both are left out of the comparison: the glyphs a block already used are the same glyphs.
"""

from __future__ import annotations

import hashlib
import re

CARD = re.compile(r'<article\b[^>]*\bdata-card="([^"]+)"[^>]*>.*?</article>', re.DOTALL)
SECTION = re.compile(r'<section\b[^>]*\bdata-section="([^"]+)"[^>]*>.*?</section>', re.DOTALL)
FONT_DATA = re.compile(r"url\(data:[^)]*\)")
CSP = re.compile(r'(http-equiv="Content-Security-Policy" content=")[^"]*"')
REST = "(rest of the page)"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def markup_digests(html: str) -> dict[str, str]:
    """A digest of each block's markup (card id, `section:<name>`) and of the rest of the page."""
    out: dict[str, str] = {}

    def card(match: re.Match[str]) -> str:
        out[match.group(1)] = _digest(match.group(0))
        return f"<card {match.group(1)}>"

    def section(match: re.Match[str]) -> str:
        out[f"section:{match.group(1)}"] = _digest(match.group(0))
        return f"<section {match.group(1)}>"

    rest = SECTION.sub(section, CARD.sub(card, html))
    out[REST] = _digest(CSP.sub(r'\1"', FONT_DATA.sub("url()", rest)))
    return out


def same_markup(old_html: str | None, new_html: str | None) -> frozenset[str] | None:
    """The blocks whose markup is the same on both pages; None when the rest of the pages
    differs (or a page is missing), so no block's markup says anything about its pixels."""
    if old_html is None or new_html is None:
        return None
    old, new = markup_digests(old_html), markup_digests(new_html)
    if old.get(REST) != new[REST]:
        return None
    return frozenset(k for k, v in new.items() if k != REST and old.get(k) == v)
