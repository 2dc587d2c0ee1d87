"""What a fetched page says about itself, and whether it is the page a link claims.

Pure functions over bytes already fetched by `pipeline.links.fetch`: titles (title, og:title,
first h1, PDF metadata), anchors, visible word counts, and fuzzy title matching. Whether a 200 is
really a not-found is `pipeline.links.soft404`.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from pipeline.artifacts.sources import title_key as normalize_title
from pipeline.pdf import PdfUnreadable, read_pdf

# A claimed title matches when its best similarity to any title the page gives reaches this.
TITLE_MATCH_THRESHOLD = 0.6
# Characters of visible text kept to compare a page with its made-up sibling.
FINGERPRINT_CHARS = 2000
# Pages of a PDF read for text (the first ones give the title; more only for the word count).
MAX_PDF_PAGES = 200
# Characters of the first line of a PDF (no metadata title) or text file used as its title.
MAX_PDF_TITLE_CHARS = 160  # also for plain-text first lines
# Tags whose text a reader never sees.
INVISIBLE_TAGS = ("script", "style", "noscript", "template", "svg", "head")
# Separators sites put between a page title and the site name ("Paged Attention | vLLM").
TITLE_SEPARATORS = re.compile(r"\s+[|\-–—·•:»]\s+|\s*[|｜—–·]\s*")

CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
LATIN_WORD = re.compile(r"[^\W\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")


@dataclass
class PageFacts:
    """Everything the checker reads from a fetched body."""

    kind: str  # "html", "pdf" or "other"
    titles: list[str] = field(default_factory=list)  # title, og:title, h1 (or PDF title), in order
    anchors: set[str] = field(default_factory=set)  # every id= and <a name=>
    words: int | None = None
    text: str = ""  # the first FINGERPRINT_CHARS of visible text, whitespace-collapsed

    @property
    def title(self) -> str | None:
        return self.titles[0] if self.titles else None


def count_words(text: str) -> int:
    """Visible words: each CJK character counts as one word, other runs of letters as one."""
    return len(CJK_CHAR.findall(text)) + len(LATIN_WORD.findall(text))


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def html_facts(body: bytes, charset: str | None) -> PageFacts:
    """Titles, anchors, word count and fingerprint of an HTML body (possibly truncated)."""
    with warnings.catch_warnings():
        # bs4 warns about odd markup; a foreign page's markup is not ours to fix.
        warnings.simplefilter("ignore")
        soup = BeautifulSoup(body, "html.parser", from_encoding=charset)
    titles: list[str] = []
    if soup.title and soup.title.string:
        titles.append(_collapse(soup.title.get_text()))
    og = soup.find("meta", attrs={"property": "og:title"}) or soup.find(
        "meta", attrs={"name": "og:title"}
    )
    if og is not None and og.get("content"):
        titles.append(_collapse(str(og.get("content"))))
    h1 = soup.find("h1")
    if h1 is not None and h1.get_text(strip=True):
        titles.append(_collapse(h1.get_text(" ")))
    anchors = {str(tag.get("id")) for tag in soup.find_all(id=True)}
    anchors |= {str(tag.get("name")) for tag in soup.find_all("a", attrs={"name": True})}
    for tag in soup.find_all(INVISIBLE_TAGS):
        tag.decompose()
    text = _collapse(soup.get_text(" "))
    titles = [t for t in titles if t]
    return PageFacts("html", titles, anchors, count_words(text), text[:FINGERPRINT_CHARS])


def pdf_facts(body: bytes) -> PageFacts:
    """Title (metadata, else the first line of text) and word count of a PDF body."""
    try:
        pdf = read_pdf(body, max_pages=MAX_PDF_PAGES)
    except PdfUnreadable:
        # A truncated or broken PDF still answered 200; say what we could not read.
        return PageFacts("pdf")
    texts = pdf.pages
    text = _collapse(" ".join(texts))
    titles = [_collapse(pdf.title)] if pdf.title else []
    first_line = next((ln.strip() for t in texts for ln in t.splitlines() if ln.strip()), "")
    if first_line:
        titles.append(first_line[:MAX_PDF_TITLE_CHARS])
    return PageFacts("pdf", titles, set(), count_words(text), text[:FINGERPRINT_CHARS])


def read_page(body: bytes, content_type: str, charset: str | None) -> PageFacts:
    """Read a body by its type (or its first bytes when the type is missing or wrong)."""
    if "pdf" in content_type or body[:5] == b"%PDF-":
        return pdf_facts(body)
    if "html" in content_type or body.lstrip()[:1] == b"<":
        return html_facts(body, charset)
    if content_type.startswith("text/"):
        text = body.decode(charset or "utf-8", errors="replace")
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        titles = [first[:MAX_PDF_TITLE_CHARS]] if first else []
        return PageFacts(
            "text", titles, set(), count_words(text), _collapse(text)[:FINGERPRINT_CHARS]
        )
    return PageFacts("other")


def _tokens(text: str) -> list[str]:
    norm = normalize_title(text)
    return CJK_CHAR.findall(norm) + LATIN_WORD.findall(norm)


def _candidates(titles: list[str]) -> list[str]:
    """Each title whole, plus each part between site-name separators."""
    out: list[str] = []
    for t in titles:
        out.append(t)
        out += [p for p in TITLE_SEPARATORS.split(t) if p.strip()]
    return out


def title_similarity(claimed: str, found: str) -> float:
    """0..1: the better of the character ratio and the share of claimed tokens found."""
    a, b = normalize_title(claimed), normalize_title(found)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    ratio = SequenceMatcher(None, a, b).ratio()
    want, have = _tokens(claimed), set(_tokens(found))
    overlap = sum(1 for t in want if t in have) / len(want) if want else 0.0
    # Containment alone is weak for very short strings ("vLLM" in every vLLM page title).
    contained = 1.0 if min(len(a), len(b)) >= 8 and (a in b or b in a) else 0.0
    return max(ratio, overlap, contained)


def best_title_match(claimed: str, titles: list[str]) -> tuple[float, str | None]:
    """The highest similarity of `claimed` to any page title (or a part of one), and which."""
    best, which = 0.0, None
    for cand in _candidates(titles):
        score = title_similarity(claimed, cand)
        if score > best:
            best, which = score, cand
    return best, which


@dataclass
class PageVerdict:
    """Whether a fetched page is the claimed one, and its #fragment exists."""

    status: Literal["ok", "mismatch", "broken"]
    evidence: str
    fragment_ok: bool | None = None


def right_page(claimed: str, url: str, facts: PageFacts, truncated: bool) -> PageVerdict:
    """Compare the page's titles with the claimed title, then look for the URL's #fragment."""
    score, which = best_title_match(claimed, facts.titles)
    if score < TITLE_MATCH_THRESHOLD:
        seen = f"'{facts.title}'" if facts.title else "no title or heading"
        return PageVerdict(
            "mismatch",
            f"the page shows {seen}, not the claimed '{claimed}' (similarity {score:.2f})",
        )
    fragment = unquote(urlsplit(url).fragment)
    fragment_ok: bool | None = None
    # Text fragments (#:~:text=) and PDF page fragments are not element ids: nothing to look up.
    if fragment and facts.kind == "html" and not fragment.startswith(":~:"):
        fragment_ok = fragment in facts.anchors
        if not fragment_ok:
            read = " in the part read" if truncated else ""
            return PageVerdict(
                "broken", f"the page is right but has no anchor '#{fragment}'{read}", False
            )
    return PageVerdict(
        "ok", f"the page title '{which}' matches (similarity {score:.2f})", fragment_ok
    )
