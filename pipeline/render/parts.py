"""Helpers of the render stage that are not about cards: the learning route's minutes and link
verdicts, the footer's source list, which characters each embedded font must cover, and the CSP.

Link results are read defensively (attributes by name) so any object shaped like
`pipeline.links.check.LinkReport` works, and `None` means "not checked".
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser

from markupsafe import Markup

from pipeline.artifacts.sources import Corpus, Source, normalize_url
from pipeline.plan.model import Plan, RouteStop

# Reading speeds behind the route's minutes; the rule is printed on the page next to them.
ENGLISH_WORDS_PER_MINUTE = 200
CHINESE_CHARS_PER_MINUTE = 300
VERIFIED_STATUSES = ("ok", "redirected-ok")
SAVED_PAGE_KINDS = frozenset({"html", "pdf"})
UNVERIFIED_STATUSES = ("unverified-offline",)
SAFE_URL = re.compile(r"^https?://[^\s\"'<>]+$", re.IGNORECASE)
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
FONT_FAMILIES = ("Ma Shan Zheng", "Patrick Hand")


def safe_url(url: str | None) -> str | None:
    """The URL if it is plain http(s) (no javascript:, data:, quotes or spaces), else None."""
    if url and SAFE_URL.match(url.strip()):
        return url.strip()
    return None


@dataclass(frozen=True)
class RouteView:
    """One stop of the learning route, ready for the template."""

    number: int
    title: str
    why: str
    url: str | None
    minutes: int | None
    verdict: str  # "verified" | "unverified" | "bad"
    checked: str  # ISO date of the check, "" when unchecked


def _link_result(links: object | None, url: str) -> object | None:
    if links is None:
        return None
    finder = getattr(links, "for_url", None)
    if callable(finder):
        return finder(url)
    for result in getattr(links, "results", []) or []:
        if normalize_url(str(getattr(result, "url", ""))) == normalize_url(url):
            return result
    return None


def _matching_source(corpus: Corpus, url: str) -> Source | None:
    """An ingested saved copy of the page: the one ingest matched to its reading-list entry (by
    URL or title, any kind), else an HTML/PDF with its URL. A Markdown or text note whose front
    matter names the URL is a note ABOUT the page: its length says nothing of the page's."""
    key = normalize_url(url)
    for entry in corpus.reading_list:  # the saved copy ingest matched to the entry (issue 13)
        if entry.matched_source and normalize_url(entry.url) == key:
            return corpus.source(entry.matched_source)
    return next(
        (
            s
            for s in corpus.sources
            if s.url and s.kind in SAVED_PAGE_KINDS and normalize_url(s.url) == key
        ),
        None,
    )


def reading_minutes(url: str, corpus: Corpus, links: object | None) -> int | None:
    """Minutes from the source's length: the link check's word count, else an ingested saved
    copy's length, else the reading list's `words`; None when the length is unknown."""
    result = _link_result(links, url)
    words = getattr(result, "words", None) if result is not None else None
    if isinstance(words, int) and words > 0:
        return max(1, math.ceil(words / ENGLISH_WORDS_PER_MINUTE))
    source = _matching_source(corpus, url)
    if source is not None:
        if source.lang.startswith("zh") and source.chars > 0:
            return max(1, math.ceil(source.chars / CHINESE_CHARS_PER_MINUTE))
        if source.words > 0:
            return max(1, math.ceil(source.words / ENGLISH_WORDS_PER_MINUTE))
    key = normalize_url(url)
    entry = next((e for e in corpus.reading_list if normalize_url(e.url) == key), None)
    if entry is not None and entry.words:
        return max(1, math.ceil(entry.words / ENGLISH_WORDS_PER_MINUTE))
    return None


def _verdict(links: object | None, url: str) -> tuple[str, str]:
    result = _link_result(links, url)
    if result is None:
        return "unverified", ""
    status = str(getattr(result, "status", ""))
    checked_at = getattr(result, "checked_at", None)
    date = getattr(checked_at, "date", None)
    checked = date().isoformat() if callable(date) else str(checked_at or "")
    if status in VERIFIED_STATUSES:
        return "verified", checked[:10]
    if status in UNVERIFIED_STATUSES or not status:
        return "unverified", ""
    return "bad", checked[:10]


def route_views(plan: Plan, corpus: Corpus, links: object | None) -> list[RouteView]:
    return [_route_view(i, stop, corpus, links) for i, stop in enumerate(plan.route)]


def _route_view(i: int, stop: RouteStop, corpus: Corpus, links: object | None) -> RouteView:
    verdict, checked = _verdict(links, stop.url)
    return RouteView(
        number=i + 1,
        title=stop.title,
        why=stop.why,
        url=safe_url(stop.url),
        minutes=reading_minutes(stop.url, corpus, links),
        verdict=verdict,
        checked=checked,
    )


@dataclass(frozen=True)
class SourceView:
    title: str
    url: str | None
    note: str


def source_views(plan: Plan, corpus: Corpus) -> list[SourceView]:
    """The footer's sources: every ingested article (linked when the plan cites it, since only
    those URLs go through the link check) and every reading-list entry."""
    cited = {c.source for concept in plan.concepts for c in concept.citations}
    out = [
        SourceView(s.title, safe_url(s.url) if s.id in cited else None, s.path)
        for s in corpus.sources
    ]
    seen = {normalize_url(v.url) for v in out if v.url}
    for e in corpus.reading_list:
        if normalize_url(e.url) not in seen:
            seen.add(normalize_url(e.url))
            out.append(SourceView(e.title, safe_url(e.url), ""))
    return out


# ---------------------------------------------------------------------------------------------
# Fonts: which characters each family must cover


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


def csp_hash(text: str) -> str:
    """The CSP source expression for an inline element whose content is exactly `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def csp_policy(style: str, scripts: Iterable[str]) -> str:
    script_hashes = " ".join(csp_hash(s) for s in scripts)
    return (
        f"default-src 'none'; style-src {csp_hash(style)}; script-src {script_hashes}; "
        "font-src data:; img-src data:; base-uri 'none'; form-action 'none'"
    )


CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
CSS_SPACE = re.compile(r"\s+")
# Spaces next to these never matter in our stylesheet (no strings hold them but `content: ""`).
CSS_TIGHT = re.compile(r"\s*([{};,>])\s*|(:)\s+")


def minify_css(css: str) -> str:
    """The stylesheet without comments and layout whitespace (it is sent on every page view;
    the readable copy is templates/page.css)."""
    css = CSS_SPACE.sub(" ", CSS_COMMENT.sub("", css))
    css = CSS_TIGHT.sub(lambda m: m.group(1) or m.group(2), css)
    return css.replace(";}", "}").strip()


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
