"""Turn the bytes of one article (Markdown, text, HTML, PDF) into a title, metadata and paragraphs.

Used by `pipeline.ingest.folder`, which walks the folder and fills the `Source` model; this module only
knows formats and encodings. Every function is pure: bytes in, an `Extracted` record out.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Any

import charset_normalizer
from bs4 import BeautifulSoup, Comment, NavigableString, Tag

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
HTML_DECLARED_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)""", re.I)
DROPPED_HTML_TAGS = [
    "nav",
    "script",
    "style",
    "footer",
    "aside",
    "noscript",
    "template",
    "form",
    "iframe",
    "svg",
    "button",
]
BLOCK_HTML_TAGS = {
    "address",
    "article",
    "blockquote",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "li",
    "main",
    "ol",
    "p",
    "section",
    "summary",
    "ul",
    "body",
    "html",
}
URL = re.compile(r"https?://[^\s<>\"'()\[\]{}，。、；：！？」』）]+")
URL_TRAILING_PUNCTUATION = ".,;:!?'\""
FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n", re.S)
MD_LINK = re.compile(r"!?\[([^\]]*)\]\((https?://[^)\s]+)(?:\s+\"[^\"]*\")?\)")
MD_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
MD_CODE_SPAN = re.compile(r"`([^`]+)`")
MD_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
MD_FENCE = re.compile(r"^(```|~~~)")
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n+")
TITLE_MAX_CHARS = 120


class Unreadable(Exception):
    """This file cannot be used as an article; the message is the reason recorded in `skipped`."""


@dataclass
class Extracted:
    """What a format parser found in one file."""

    paragraphs: list[str]
    encoding: str
    title: str | None = None
    url: str | None = None
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


def _clean_inline(text: str) -> str:
    return re.sub(r"[ \t\r\f\v]+", " ", text).strip()


def _split_paragraphs(text: str) -> list[str]:
    return [p.strip() for p in PARAGRAPH_BREAK.split(text.replace("\r\n", "\n")) if p.strip()]


def _first_line(paragraphs: list[str]) -> str | None:
    for p in paragraphs:
        line = p.strip().splitlines()[0].strip() if p.strip() else ""
        if line:
            return line[:TITLE_MAX_CHARS]
    return None


def _simple_front_matter(block: str) -> dict[str, str]:
    """`key: value` lines of YAML front matter; nested YAML is not needed for title/url/lang."""
    out: dict[str, str] = {}
    for line in block.splitlines():
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if m:
            value = m.group(2).strip()
            # Only a matching pair of quotes is YAML quoting; a title may end with a quote mark.
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[m.group(1).lower()] = value
    return out


# ---------------------------------------------------------------------------------------------
# Formats


def parse_text(data: bytes) -> Extracted:
    """Plain text: paragraphs split on blank lines, title from the first line."""
    text, encoding = decode_text(data)
    paragraphs = _split_paragraphs(text)
    return Extracted(paragraphs, encoding, title=_first_line(paragraphs), links=find_urls(text))


def parse_markdown(data: bytes) -> Extracted:
    """Markdown: front matter (title, url, lang), headings and blocks as paragraphs, inline
    markup removed so a quoted passage matches what a reader sees."""
    text, encoding = decode_text(data)
    text = text.replace("\r\n", "\n")
    meta: dict[str, str] = {}
    m = FRONT_MATTER.match(text)
    if m:
        meta = _simple_front_matter(m.group(1))
        text = text[m.end() :]
    links = [u for _, u in MD_LINK.findall(text)] + find_urls(MD_LINK.sub("", text))
    paragraphs: list[str] = []
    title: str | None = meta.get("title") or None
    for block in _markdown_blocks(text):
        heading = MD_HEADING.match(block)
        if heading:
            block = heading.group(1)
            if title is None and block.strip():
                title = _strip_markdown(block)
        cleaned = block if MD_FENCE.match(block) else _strip_markdown(block)
        if MD_FENCE.match(cleaned):
            cleaned = "\n".join(cleaned.splitlines()[1:-1]) if cleaned.count("\n") else ""
        if cleaned.strip():
            paragraphs.append(cleaned.strip())
    return Extracted(
        paragraphs,
        encoding,
        title=title or _first_line(paragraphs),
        url=meta.get("url") or meta.get("canonical") or None,
        lang=meta.get("lang") or meta.get("language") or None,
        links=links,
    )


def _markdown_blocks(text: str) -> list[str]:
    """Blocks separated by blank lines; a fenced code block stays one block; a heading line is
    always a block of its own."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if current:
            blocks.append("\n".join(current))
            current.clear()

    for line in text.split("\n"):
        if fence:
            current.append(line)
            if line.strip().startswith(fence):
                fence = None
                flush()
            continue
        start = MD_FENCE.match(line.strip())
        if start:
            flush()
            fence = start.group(1)
            current.append(line)
        elif not line.strip():
            flush()
        elif MD_HEADING.match(line):
            flush()
            blocks.append(line)
        else:
            current.append(line)
    flush()
    return blocks


def _strip_markdown(block: str) -> str:
    block = MD_LINK.sub(lambda m: m.group(1), block)
    block = MD_CODE_SPAN.sub(lambda m: m.group(1), block)
    block = MD_EMPHASIS.sub(lambda m: m.group(2) or m.group(3), block)
    return "\n".join(_clean_inline(line) for line in block.split("\n"))


def parse_html(data: bytes) -> Extracted:
    """HTML: navigation, scripts, footers and asides dropped; headings, paragraphs, list items,
    code and tables kept as text. Title from <title>, og:title or <h1>; canonical URL; <html lang>."""
    declared = HTML_DECLARED_CHARSET.search(data[:BINARY_SNIFF_BYTES])
    text, encoding = decode_text(data, declared.group(1).decode("ascii") if declared else None)
    soup = BeautifulSoup(text, "html.parser")
    title = _html_title(soup)
    canonical = _html_canonical(soup)
    html_tag = soup.find("html")
    lang = html_tag.get("lang") if isinstance(html_tag, Tag) else None
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(["head", *DROPPED_HTML_TAGS]):
        tag.decompose()
    # A page header outside the article is site chrome; inside it, it holds the article's h1.
    for tag in soup.find_all("header"):
        if tag.find_parent(["article", "main"]) is None:
            tag.decompose()
    root = soup.body or soup
    links = [
        str(a["href"])
        for a in root.find_all("a", href=True)
        if str(a["href"]).startswith(("http://", "https://"))
    ]
    paragraphs = [p for p in _html_blocks(root) if p]
    links += find_urls("\n".join(paragraphs))
    return Extracted(
        paragraphs,
        encoding,
        title=title or _first_line(paragraphs),
        url=canonical,
        lang=str(lang) if lang else None,
        links=links,
    )


def _html_title(soup: BeautifulSoup) -> str | None:
    if soup.title and soup.title.get_text(strip=True):
        return _clean_inline(soup.title.get_text(" ", strip=True))[:TITLE_MAX_CHARS]
    og = soup.find("meta", attrs={"property": "og:title"})
    if isinstance(og, Tag) and og.get("content"):
        return _clean_inline(str(og["content"]))[:TITLE_MAX_CHARS]
    h1 = soup.find("h1")
    if isinstance(h1, Tag) and h1.get_text(strip=True):
        return _clean_inline(h1.get_text(" ", strip=True))[:TITLE_MAX_CHARS]
    return None


def _html_canonical(soup: BeautifulSoup) -> str | None:
    for link in soup.find_all("link", href=True):
        rel: Any = link.get("rel") or []
        rels = [str(r) for r in rel] if isinstance(rel, list) else [str(rel)]
        if "canonical" in [r.lower() for r in rels] and str(link["href"]).startswith("http"):
            return str(link["href"])
    og = soup.find("meta", attrs={"property": "og:url"})
    if isinstance(og, Tag) and str(og.get("content", "")).startswith("http"):
        return str(og["content"])
    return None


def _html_blocks(node: Tag) -> list[str]:
    """Paragraph texts of a subtree: inline runs between block elements form one paragraph.
    Walked with an explicit stack, so a page nested thousands of levels deep still reads."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        joined = "\n".join(_clean_inline(x) for x in "".join(run).split("\n"))
        if joined.strip():
            out.append(joined.strip())
        run.clear()

    stack = [iter(node.children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            flush()
        elif isinstance(child, NavigableString):
            run.append(str(child).replace("\n", " "))
        elif not isinstance(child, Tag):
            continue
        elif child.name == "br":
            run.append("\n")
        elif child.name == "table":
            flush()
            out.append(_html_table(child))
        elif child.name == "pre":
            flush()
            out.append(child.get_text().strip("\n"))
        elif child.name in BLOCK_HTML_TAGS:
            flush()
            stack.append(iter(child.children))
        else:
            run.append(child.get_text())
    return out


def _html_table(table: Tag) -> str:
    rows = []
    for tr in table.find_all("tr"):
        cells = [_clean_inline(c.get_text(" ", strip=True)) for c in tr.find_all(["th", "td"])]
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def parse_pdf(data: bytes) -> Extracted:
    """PDF (text layer only, via `pipeline.pdf`): paragraphs per page split on blank lines; title
    from the document metadata, else the first line. What pypdf repaired becomes `warnings`."""
    try:
        pdf = read_pdf(data)
    except PdfUnreadable as why:
        raise Unreadable(str(why)) from None
    paragraphs = [p for page in pdf.pages for p in _split_paragraphs(page)]
    if not paragraphs:
        raise Unreadable("PDF has no text layer (scanned?)")
    return Extracted(
        paragraphs,
        "pdf",
        title=pdf.title or _first_line(paragraphs),
        links=find_urls("\n".join(pdf.pages)),
        warnings=[f"damaged PDF, read what could be read ({p})" for p in pdf.problems[:1]],
    )


PARSERS = {"md": parse_markdown, "txt": parse_text, "html": parse_html, "pdf": parse_pdf}
