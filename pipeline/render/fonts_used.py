"""The page's handwriting fonts: which characters each family sets (so the embedded subsets cover
exactly those), the hand-lettered runs (Latin words inside a Chinese title go to the English
hand), the subset @font-face CSS, and the licence notices printed in the footer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from markupsafe import Markup

from pipeline.fonts import HAND_EN, HAND_ZH, license_text, subset_faces

# Elements with no end tag: never pushed on the font-inheritance stack.
VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)
# The embedded handwriting families, in the order their licences are printed.
FONT_FAMILIES = (HAND_ZH, HAND_EN)
# Where an OFL LICENSE file's shared text starts, after the family's own copyright line.
LICENCE_BODY_START = "This Font Software is licensed"


class _FontText(HTMLParser):
    """Collect text by the font family it renders in (`data-font`, or an SVG `font-family`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None]] = []
        self.text: dict[str, set[str]] = {family: set() for family in FONT_FAMILIES}
        self.skip = 0

    def _family(self, attrs: list[tuple[str, str | None]]) -> str | None:
        found = dict(attrs)
        named = found.get("data-font") or found.get("font-family") or ""
        return next((f for f in FONT_FAMILIES if f in named), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_TAGS:
            return
        inherited = self.stack[-1][1] if self.stack else None
        self.stack.append((tag, self._family(attrs) or inherited))
        if tag in ("style", "script"):
            self.skip += 1

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        if tag in ("style", "script"):
            self.skip = max(0, self.skip - 1)

    def handle_data(self, data: str) -> None:
        if self.skip or not self.stack:
            return
        family = self.stack[-1][1]
        if family is not None:
            self.text[family].update(ch for ch in data if not ch.isspace())


def font_text(html: str) -> dict[str, str]:
    """Family → the sorted characters the page sets in it."""
    parser = _FontText()
    parser.feed(html)
    parser.close()
    return {family: "".join(sorted(chars)) for family, chars in parser.text.items()}


def font_css(chars_by_family: Mapping[str, str]) -> str:
    faces: list[str] = []
    for family, chars in sorted(chars_by_family.items()):
        if chars:
            faces.extend(face.css() for face in subset_faces(family, chars))
    return "\n".join(faces)


@dataclass(frozen=True)
class Licences:
    """The embedded families' copyright lines and their licence text, shared when identical
    (both fonts are OFL-1.1: the 4 KB licence body is printed once)."""

    notices: list[tuple[str, str]]
    texts: list[str]


def licences(families: Sequence[str]) -> Licences:
    notices: list[tuple[str, str]] = []
    bodies: list[str] = []
    for family in families:
        text = license_text(family)
        head, sep, body = text.partition(LICENCE_BODY_START)
        if not sep:
            head, body = "", text
        notices.append((family, head.strip()))
        if (sep + body).strip() not in bodies:
            bodies.append((sep + body).strip())
    return Licences(notices, bodies)


# P16: inside a Chinese hand-lettered title, Latin words and numbers are set in the English hand.
LATIN_RUN = re.compile(r"([A-Za-z0-9][A-Za-z0-9.+%/-]*(?: [A-Za-z0-9][A-Za-z0-9.+%/-]*)*)")
MARKUP_PIECES = re.compile(r"(<[^>]*>|&#?\w+;)")


def _font_span(text: str, family: str) -> str:
    return f'<span data-font="{family}">{text}</span>'


def hand_runs(html: str, family: str, latin_family: str) -> Markup:
    """Escaped HTML whose text is split into runs, each in a span marked with the font it renders
    in: Latin/number runs in `latin_family`, the rest in `family` (whitespace stays bare).
    Tags are left whole; a character reference stays inside the run it belongs to."""
    out: list[str] = []
    run: list[str] = []  # the current non-Latin text (with its character references)

    def flush() -> None:
        text = "".join(run)
        run.clear()
        if text.strip():
            lead = text[: len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()) :]
            out.append(lead + _font_span(text.strip(), family) + trail)
        else:
            out.append(text)

    for piece in MARKUP_PIECES.split(str(html)):
        if piece.startswith("<"):
            flush()
            out.append(piece)
        elif piece.startswith("&") and piece.endswith(";"):
            run.append(piece)
        else:
            for i, part in enumerate(LATIN_RUN.split(piece)):
                if i % 2 == 0:
                    run.append(part)
                else:
                    flush()
                    out.append(_font_span(part, latin_family))
    flush()
    return Markup("".join(out))
