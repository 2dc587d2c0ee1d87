"""The ingested corpus (`sources.json`): the model every stage reads the articles through.

`pipeline.ingest.folder` builds it from a folder; the plan validator uses it to find quoted passages and
to know which URLs came from the sources (the only ones the page may show).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from pipeline.urls import without_credentials

SOURCES_FORMAT = 1
# An address from an article or the reading list, kept without any `user:password@`: they would
# otherwise reach the link checker, sources.json and the page's hrefs.
WebAddress = Annotated[str, AfterValidator(without_credentials)]
# The reading list of an input folder (its entries' `line` numbers are lines of this file).
READING_LIST_NAME = "reading-list.md"


class Paragraph(BaseModel):
    """One paragraph of an article, with a stable anchor (`<source id>-p<index>`)."""

    model_config = ConfigDict(extra="forbid")

    anchor: str
    text: str


class Source(BaseModel):
    """One article of the input folder, as text with paragraph anchors."""

    model_config = ConfigDict(extra="forbid")

    id: str
    path: str
    kind: str = Field(description="md, txt, html or pdf")
    encoding: str = "utf-8"
    title: str
    title_from: str | None = Field(
        default=None,
        description="what gave the title: og:title, h1, front-matter, title-tag, file-name, "
        "pdf-metadata, title-line, heading (a section heading), first-line",
    )
    url: WebAddress | None = None
    url_from: str | None = Field(
        default=None,
        description="what gave the URL: canonical, front-matter, og:url, saved-from; "
        "reading-list when the page's own was a site-wide one (an ancestor of its entry's URL)",
    )
    date: str | None = Field(default=None, description="publication date, as the file gives it")
    lang: str = "zh"
    words: int = 0
    chars: int = 0
    reading_minutes: int = 0
    sha256: str
    paragraphs: list[Paragraph] = Field(default_factory=list)
    links: list[WebAddress] = Field(
        default_factory=list, description="http(s) URLs inside the article"
    )

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.paragraphs)


class ReadingListEntry(BaseModel):
    """One entry of `reading-list.md`: a title, the address it gives (if any), its note, and
    the saved copy of the article in the folder (if any)."""

    model_config = ConfigDict(extra="forbid")

    title: str
    url: WebAddress | None = Field(
        default=None,
        description="the article's complete http(s) URL; None when the list gives no address, "
        "or only one cut short that no saved copy completes (then it is never a link)",
    )
    note: str = ""
    words: int | None = None
    matched_source: str | None = Field(
        default=None, description="id of the saved copy of this entry in the folder, if any"
    )
    matched_by: str | None = Field(
        default=None,
        description="how the saved copy was found: url, title (similar titles), contains (the "
        "entry's title contains the copy's), filename (several copies' titles fit equally; the "
        "file name chose)",
    )
    match_score: float | None = Field(
        default=None,
        description="title similarity of entry and saved copy (0..1); for contains and "
        "filename, the share of the entry's title the copy's title covers",
    )
    match_why: str | None = Field(default=None, description="why this copy, in a sentence")
    title_from: str = Field(
        default="list",
        description="list (the list's text), copy (the matched saved copy), address (nothing "
        "else gave one), item (a list item with no address: its text, to be matched)",
    )
    address: WebAddress = Field(
        default="", description="the address as the list writes it (credentials dropped); empty "
        "when it gives none"
    )
    address_cut_short: bool = Field(
        default=False,
        description="the address was cut short (…) and nothing completed it: no link, no route",
    )
    completed_from: str | None = Field(
        default=None,
        description="what gave the whole URL of an address cut short or written without a "
        "scheme: a saved copy's id, or reading-list.md:LINE",
    )
    line: int | None = Field(default=None, description="line of reading-list.md")


class UnmatchedEntry(BaseModel):
    """A reading-list entry with no saved copy in the folder, and why none was taken."""

    model_config = ConfigDict(extra="forbid")

    title: str
    url: WebAddress | None = None
    reason: str
    line: int | None = None


class SkippedFile(BaseModel):
    """A file of the folder that was not used, and why."""

    model_config = ConfigDict(extra="forbid")

    path: str
    reason: str


class FileWarning(BaseModel):
    """A file that was used, but not all of it could be read (e.g. a truncated PDF)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    warning: str


class Corpus(BaseModel):
    """Everything ingested from one folder: articles, reading list, skipped files, warnings."""

    model_config = ConfigDict(extra="forbid")

    format: int = SOURCES_FORMAT
    folder: str
    sources: list[Source] = Field(default_factory=list)
    reading_list: list[ReadingListEntry] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)
    warnings: list[FileWarning] = Field(default_factory=list)
    unmatched: list[UnmatchedEntry] = Field(
        default_factory=list, description="reading-list entries with no saved copy in the folder"
    )

    def source(self, source_id: str) -> Source | None:
        return next((s for s in self.sources if s.id == source_id), None)

    def urls(self) -> set[str]:
        """Every URL the page may link to, normalised: the reading list's complete addresses and
        the articles' own URLs (canonical link, front matter `url:`) - exactly the URLs the
        prompt offers the model for the route (PIPELINE.md, "Input folder"). Links inside an
        article are not among them, and neither is an address cut short."""
        found = [e.url for e in self.reading_list if e.url]
        found += [s.url for s in self.sources if s.url]
        return {normalize_url(u) for u in found}

    def has_url(self, url: str) -> bool:
        return normalize_url(url) in self.urls()

    def find_quote(self, source_id: str, quote: str) -> str | None:
        """The anchor of the paragraph holding `quote` (whitespace-insensitive), else None."""
        source = self.source(source_id)
        if source is None:
            return None
        needle = normalize_text(quote)
        if not needle:
            return None
        for p in source.paragraphs:
            if needle in normalize_text(p.text):
                return p.anchor
        return None


def normalize_text(text: str) -> str:
    """Compare passages loosely: NFKC, no whitespace, unified quotes and dashes."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("“", '"').replace("”", '"').replace("‘", "'").replace("’", "'")
    text = re.sub(r"[\u2010-\u2015]", "-", text)
    return re.sub(r"\s+", "", text)


def normalize_url(url: str) -> str:
    """Compare URLs loosely: lower-case scheme and host, no trailing slash, no fragment, no
    credentials (the sources keep none, so an address given with some still names its page)."""
    url = without_credentials(url.strip())
    url = url.split("#", 1)[0]
    m = re.match(r"^(https?)://([^/]+)(.*)$", url, flags=re.I)
    if not m:
        return url
    scheme, host, rest = m.group(1).lower(), m.group(2).lower(), m.group(3)
    if rest.endswith("/"):
        rest = rest.rstrip("/")
    return f"{scheme}://{host}{rest}"


def is_site_root(url: str) -> bool:
    """Whether a URL is a site's front page: not an article's address (an og:url pointing there
    is ignored by ingest; a redirect there from an article is a soft 404)."""
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query


def title_key(text: str) -> str:
    """A title for comparing: NFKC, case-folded, punctuation to spaces, whitespace collapsed.
    The link checker and ingest's reading-list matcher compare titles through it."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[^\w\s]", " ", text)
    return re.sub(r"\s+", " ", text).strip()
