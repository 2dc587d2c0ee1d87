"""Turn the bytes of one article (Markdown, text, HTML, PDF) into a title, metadata and paragraphs.

Used by `pipeline.ingest.folder`, which walks the folder and fills the `Source` model; this module only
knows formats and encodings. Every function is pure: bytes in, an `Extracted` record out.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

import charset_normalizer

from pipeline.pdf import PdfUnreadable, read_pdf

# Encodings a saved article may plausibly use. Detection is restricted to these because
# charset-normalizer, left free, reads short GBK text as Korean cp949.
DETECTABLE_ENCODINGS = ["gb18030", "big5", "cp1252"]
BOMS = [
    (codecs.BOM_UTF8, "utf-8-sig", "utf-8-bom"),
    (codecs.BOM_UTF32_LE, "utf-32", "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "utf-16"),
]
# A file whose first bytes hold a NUL (and no UTF-16/32 BOM) is binary, whatever its name.
BINARY_SNIFF_BYTES = 8192
# Names charset-normalizer reports, mapped to the names we record.
ENCODING_NAMES = {
    "utf_8": "utf-8",
    "gb18030": "gb18030",
    "gbk": "gb18030",
    "gb2312": "gb18030",
    "big5": "big5",
    "cp1252": "cp1252",
    "latin_1": "latin-1",
}
URL = re.compile(r"https?://[^\s<>\"'()\[\]{}，。、；：！？」』）]+")
URL_TRAILING_PUNCTUATION = ".,;:!?'\""
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n+")
TITLE_MAX_CHARS = 120
# A text file's first line is its title when it stands alone and is at most this long.
TITLE_LINE_MAX_CHARS = 80


class Unreadable(Exception):
    """This file cannot be used as an article; the message is the reason recorded in `skipped`."""


@dataclass
class Extracted:
    """What a format parser found in one file."""

    paragraphs: list[str]
    encoding: str
    title: str | None = None
    # Which field gave the title / URL (reported in sources.json): "og:title", "h1",
    # "front-matter", "title-tag", "pdf-metadata", "heading", "first-line"; "canonical",
    # "front-matter", "og:url", "saved-from".
    title_from: str | None = None
    url: str | None = None
    url_from: str | None = None
    date: str | None = None
    lang: str | None = None
    links: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Encodings


def decode_text(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """(text, encoding name) of a text file: BOM, then strict UTF-8, then a declared charset,
    then detection among DETECTABLE_ENCODINGS. Raises `Unreadable` rather than guess."""
    for bom, codec, name in BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as err:
                raise Unreadable(f"{name} BOM but invalid {name} data ({err.reason})") from None
            return text.lstrip("\ufeff"), name
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise Unreadable("binary file (NUL bytes, no UTF-16 BOM)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return data.decode(declared), ENCODING_NAMES.get(
                declared.lower().replace("-", "_"), declared.lower()
            )
        except (UnicodeDecodeError, LookupError):
            pass  # a wrong declaration is common in saved pages: fall through to detection
    best = charset_normalizer.from_bytes(data, cp_isolation=DETECTABLE_ENCODINGS).best()
    if best is None:
        raise Unreadable("encoding not recognised (tried UTF-8/16, GB18030, Big5, cp1252)")
    text = str(best)
    if _looks_binary(text):
        raise Unreadable("binary file (control characters)")
    return text, ENCODING_NAMES.get(best.encoding, best.encoding)


def _looks_binary(text: str) -> bool:
    sample = text[:BINARY_SNIFF_BYTES]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t\f")
    return bool(sample) and controls / len(sample) > 0.01


# ---------------------------------------------------------------------------------------------
# Shared text helpers


def find_urls(text: str) -> list[str]:
    """http(s) URLs in running text, without trailing sentence punctuation."""
    return [u.rstrip(URL_TRAILING_PUNCTUATION) for u in URL.findall(text)]


def clean_inline(text: str) -> str:
    return re.sub(r"[ \t\r\f\v]+", " ", text).strip()


def split_paragraphs(text: str) -> list[str]:
    return [p.strip() for p in PARAGRAPH_BREAK.split(text.replace("\r\n", "\n")) if p.strip()]


def first_line(paragraphs: list[str]) -> str | None:
    for p in paragraphs:
        line = p.strip().splitlines()[0].strip() if p.strip() else ""
        if line:
            return line[:TITLE_MAX_CHARS]
    return None


# ---------------------------------------------------------------------------------------------
# Formats


def parse_text(data: bytes) -> Extracted:
    """Plain text: paragraphs split on blank lines. A short first line standing alone is the
    title ("title-line"); a first line running into the text is only a weak guess."""
    text, encoding = decode_text(data)
    paragraphs = split_paragraphs(text)
    lead = paragraphs[0] if paragraphs else ""
    alone = "\n" not in lead and len(lead) <= TITLE_LINE_MAX_CHARS and len(paragraphs) > 1
    return Extracted(
        paragraphs,
        encoding,
        title=first_line(paragraphs),
        title_from="title-line" if alone else "first-line",
        links=find_urls(text),
    )


def parse_pdf(data: bytes) -> Extracted:
    """PDF (text layer only, via `pipeline.pdf`): paragraphs per page split on blank lines; title
    from the document metadata, else the first line. What pypdf repaired becomes `warnings`."""
    try:
        pdf = read_pdf(data)
    except PdfUnreadable as why:
        raise Unreadable(str(why)) from None
    paragraphs = [p for page in pdf.pages for p in split_paragraphs(page)]
    if not paragraphs:
        raise Unreadable("PDF has no text layer (scanned?)")
    return Extracted(
        paragraphs,
        "pdf",
        title=pdf.title or first_line(paragraphs),
        title_from="pdf-metadata" if pdf.title else "first-line",
        links=find_urls("\n".join(pdf.pages)),
        warnings=[f"damaged PDF, read what could be read ({p})" for p in pdf.problems[:1]]
        + ([f"long PDF: {pdf.stopped}"] if pdf.stopped else []),
    )

