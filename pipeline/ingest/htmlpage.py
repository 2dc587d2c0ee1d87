"""Saved HTML pages (and raw HTML blocks inside Markdown) as paragraphs of the article alone.

A saved page carries its site: navigation, a sidebar with "On this page", breadcrumbs, a skip
link, share buttons, a footer with a subscribe form. `parse_html` drops that chrome, takes the
article's own element (`<article>`, `<main>`, …) when it holds the bulk of the text, turns
KaTeX/MathJax back into readable formulas, and keeps an image's `alt` as a note. Its title is
chosen by trust (og:title, the article's h1, front matter, `<title>` without the site's name)
and its URL from the canonical link, front matter, or og:url when that is not the site's root.
Each choice is reported (`title_from`, `url_from`).

Main-content extraction is a handful of BeautifulSoup rules rather than readability-lxml or
trafilatura: both pull lxml and a stack of heuristics for news pages, while saved posts mark
their chrome plainly (nav/aside/footer, roles, class names) and must be read offline and
deterministically.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from pipeline.artifacts.sources import is_site_root
from pipeline.ingest.formats import (
    BINARY_SNIFF_BYTES,
    Extracted,
    clean_inline,
    decode_text,
    find_urls,
    first_line,
)
from pipeline.ingest.frontmatter import split_front_matter
from pipeline.ingest.htmlchrome import is_gone, strip_page
from pipeline.ingest.mathtext import replace_math, tex_to_text
from pipeline.ingest.titles import clean_title, strip_site_suffix

HTML_DECLARED_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)""", re.I)
# "<!-- saved from url=(0048)https://… -->", written by browsers' "Save page as".
SAVED_FROM = re.compile(r"<!--\s*saved from url=\(\d+\)(https?://[^\s>]+?)\s*-->", re.I)
BLOCK_HTML_TAGS = {
    "address",
    "article",
    "blockquote",
    "center",
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
CODE_TAGS = {"code", "kbd", "samp", "tt", "var"}
# The article's own element, most specific first; taken when it holds at least this share of
# the page's remaining text (a bare <article> wrapping only a teaser is not the article).
MAIN_SELECTORS = [
    "article",
    "main",
    "[role=main]",
    "#content",
    ".post-content",
    ".entry-content",
    ".article-content",
    ".markdown-body",
    ".post",
    ".content",
]
MAIN_MIN_SHARE = 0.25
MAIN_MAX_CANDIDATES = 20  # elements of one selector weighed (a listing page has hundreds)
SITE_NAME_META = [
    {"property": "og:site_name"},
    {"name": "application-name"},
    {"name": "apple-mobile-web-app-title"},
]
DATE_META = [
    {"property": "article:published_time"},
    {"name": "date"},
    {"name": "dc.date"},
    {"itemprop": "datePublished"},
]
CJK = re.compile(r"[\u3400-\u9fff]")
# What Python's html.parser needs to close a comment (its own `commentclose`).
COMMENT_CLOSE = re.compile(r"--\s*>")
TAG_OR_COMMENT_OPEN = re.compile(r"<(!--)?")


def soup_of(html: str) -> BeautifulSoup:
    """`html` parsed by BeautifulSoup (html.parser), in linear time: see `_unclosable_escaped`."""
    return BeautifulSoup(_unclosable_escaped(html), "html.parser")


def _unclosable_escaped(html: str) -> str:
    """`html` with every `<` that can never open a complete tag (no `>` after it) or comment (no
    `-->` after it) written as `&lt;`, which reads as the same text (but for a character
    reference right after such a `<`, which html.parser would have left undecoded).

    At the end of its input html.parser takes such a `<` as text and starts again one character
    on, and its tag pattern scans to the end of the input from each: 200 KB of `<a ` took minutes
    (fixed in CPython 3.13.4 and 3.12.11, gh-135462; this Python may be older)."""
    last_gt = html.rfind(">")
    last_close = max((m.start() for m in COMMENT_CLOSE.finditer(html)), default=-1)
    out: list[str] = []
    pos = 0
    for m in TAG_OR_COMMENT_OPEN.finditer(html):
        start = m.start()
        if start > last_gt or (m.group(1) and last_close < start + len("<!--")):
            out += [html[pos:start], "&lt;"]
            pos = start + 1
    out.append(html[pos:])
    return "".join(out)


def image_note(alt: str) -> str:
    """An image's alt text as a note in the text ("Image: …", "图：…" for Chinese alt text)."""
    alt = clean_inline(alt)
    if not alt:
        return ""
    return f"图：{alt}" if CJK.search(alt) else f"Image: {alt}"


def parse_html(data: bytes) -> Extracted:
    """A saved HTML page: the article's paragraphs, title, URL, date and language."""
    declared = HTML_DECLARED_CHARSET.search(data[:BINARY_SNIFF_BYTES])
    text, encoding = decode_text(data, declared.group(1).decode("ascii") if declared else None)
    front = split_front_matter(text)  # an .html post source of Jekyll or Hugo
    saved_from = SAVED_FROM.search(text[:BINARY_SNIFF_BYTES])
    soup = soup_of(front.body)
    site_names = _site_names(soup)
    og_title = _meta(soup, {"property": "og:title"})
    tag_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    html_tag = soup.find("html")
    lang = html_tag.get("lang") if isinstance(html_tag, Tag) else None
    url, url_from = _page_url(soup, front.url, saved_from.group(1) if saved_from else None)
    date = _meta(soup, *DATE_META) or front.date
    root = _article_root(soup)
    site_names += _title_tag_site(tag_title)
    h1_text = _article_h1(root, soup, site_names)
    if not date:
        time = root.find("time", attrs={"datetime": True})
        date = str(time["datetime"]) if isinstance(time, Tag) else None
    _drop_post_headers_meta(root)
    links = _links(root)
    paragraphs = html_paragraphs(root)
    links += find_urls("\n".join(paragraphs))
    hosts = [urlsplit(url).hostname or ""] if url else []
    candidates = [
        ("og:title", strip_site_suffix(og_title or "", [*site_names, *hosts])),
        ("h1", h1_text),
        ("front-matter", front.title or ""),
        ("title-tag", strip_site_suffix(tag_title, [*site_names, *hosts])),
    ]
    names = {n.casefold() for n in site_names}
    title, title_from = next(
        ((clean_title(t), how) for how, t in candidates
         if clean_title(t) and t.casefold() not in names),
        (first_line(paragraphs), "first-line"),
    )
    return Extracted(
        paragraphs,
        encoding,
        title=title,
        title_from=title_from if title else None,
        url=url,
        url_from=url_from,
        date=date,
        lang=str(lang) if lang else front.lang,
        links=links,
    )


def fragment_paragraphs(html: str) -> tuple[list[str], list[str]]:
    """Paragraphs and http(s) links of an HTML fragment (a raw HTML block in Markdown)."""
    soup = soup_of(html)
    _math_to_text(soup)
    strip_page(soup)
    return html_paragraphs(soup), _links(soup)


def _title_tag_site(tag_title: str) -> list[str]:
    """The site's name as `<title>` gives it ("Post | Blog" → "Blog"), when it is cut off."""
    head = strip_site_suffix(tag_title)
    tail = tag_title[len(head) :].strip()
    return [re.sub(r"^\W+", "", tail)] if head != tag_title.strip() and tail else []


def _article_h1(root: Tag, soup: BeautifulSoup, site_names: list[str]) -> str:
    """The first h1 of the article (else of the page) that is not the site's name."""
    names = {n.casefold() for n in site_names}
    for h1 in [*root.find_all("h1"), *soup.find_all("h1")]:
        text = h1.get_text(" ", strip=True)
        if text and text.casefold() not in names:
            return text
    return ""


def _meta(soup: BeautifulSoup, *attrs: dict[str, Any]) -> str | None:
    head = soup.head or soup  # a page of thousands of tags is not searched six times
    for attr in attrs:
        tag = head.find("meta", attrs=attr)
        if isinstance(tag, Tag) and str(tag.get("content", "")).strip():
            return clean_inline(str(tag["content"]))
    return None


def _site_names(soup: BeautifulSoup) -> list[str]:
    return [name for attr in SITE_NAME_META if (name := _meta(soup, attr))]


def _page_url(
    soup: BeautifulSoup, front_url: str | None, saved_from: str | None
) -> tuple[str | None, str | None]:
    """(URL, which field gave it): canonical link, front matter, og:url unless it is the site's
    root (a blog's home page is not the article), then the browser's "saved from" comment."""
    og_url = _meta(soup, {"property": "og:url"})
    canonical = None
    for link in soup.find_all("link", href=True):
        rel: Any = link.get("rel") or []
        rels = [str(r).lower() for r in (rel if isinstance(rel, list) else [rel])]
        if "canonical" in rels:
            canonical = urljoin(og_url or saved_from or "", str(link["href"]).strip())
            break
    for url, how in (
        (canonical, "canonical"),
        (front_url, "front-matter"),
        (og_url if og_url and not is_site_root(og_url) else None, "og:url"),
        (saved_from, "saved-from"),
    ):
        if url and re.match(r"^https?://[^\s/]+", url, flags=re.I):
            return url, how
    return None, None


def _math_to_text(soup: BeautifulSoup) -> None:
    """KaTeX / MathJax output and MathJax's TeX scripts become the formula as readable text."""
    for script in soup.find_all("script", attrs={"type": re.compile(r"^math/tex", re.I)}):
        script.replace_with(NavigableString(" " + tex_to_text(script.get_text()) + " "))
    for el in soup.find_all(class_=re.compile(r"^(katex-display|katex|MathJax_Display|MathJax)$")):
        if is_gone(el) or el.find_parent(class_=re.compile(r"^(katex|MathJax)")):
            continue
        annotation = el.find("annotation", attrs={"encoding": "application/x-tex"})
        if isinstance(annotation, Tag):
            el.replace_with(NavigableString(" " + tex_to_text(annotation.get_text()) + " "))
    for el in soup.find_all(["mjx-container", "math"]):
        if is_gone(el):
            continue
        annotation = el.find("annotation", attrs={"encoding": "application/x-tex"})
        alttext = el.get("alttext") if el.name == "math" else None
        if isinstance(annotation, Tag):
            text = tex_to_text(annotation.get_text())
        elif alttext:
            text = tex_to_text(str(alttext))
        else:
            mml = el.find("math") if el.name != "math" else el
            text = clean_inline(mml.get_text(" ") if isinstance(mml, Tag) else "")
        el.replace_with(NavigableString(" " + text + " "))


def _article_root(soup: BeautifulSoup) -> Tag:
    """The element holding the article after the chrome is gone, else the body."""
    _math_to_text(soup)
    strip_page(soup)
    body = soup.body or soup
    total = len(body.get_text(strip=True))
    for selector in MAIN_SELECTORS:
        found = [t for t in soup.select(selector, limit=MAIN_MAX_CANDIDATES) if isinstance(t, Tag)]
        if not found:
            continue
        best = max(found, key=lambda t: len(t.get_text(strip=True)))
        if total and len(best.get_text(strip=True)) >= total * MAIN_MIN_SHARE:
            return best
    return body


def _drop_post_headers_meta(root: Tag) -> None:
    """Inside the article's header: the date line and tags are not the article's text."""
    for header in root.find_all("header"):
        for tag in header.find_all(["p", "div", "ul"]):
            if not is_gone(tag) and tag.find("time") is not None and tag.find("h1") is None:
                tag.decompose()


def _links(root: Tag) -> list[str]:
    return [
        str(a["href"])
        for a in root.find_all("a", href=True)
        if str(a["href"]).startswith(("http://", "https://"))
    ]


def html_paragraphs(node: Tag) -> list[str]:
    """Paragraph texts of a subtree: inline runs between block elements form one paragraph; an
    image's alt text is a note of its own; formulas in `$…$` / `\\(…\\)` become text.
    Walked with an explicit stack, so a page nested thousands of levels deep still reads."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        joined = "\n".join(clean_inline(x) for x in "".join(run).split("\n"))
        if joined.strip():
            out.append(joined.strip())
        run.clear()

    stack = [iter(node.children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            flush()
        elif isinstance(child, Comment):
            continue
        elif isinstance(child, NavigableString):
            run.append(replace_math(str(child).replace("\n", " "), backslash_delimiters=True))
        elif not isinstance(child, Tag):
            continue
        elif child.name == "br":
            run.append("\n")
        elif child.name == "img":
            note = image_note(str(child.get("alt") or ""))
            if note:
                flush()
                out.append(note)
        elif child.name == "table":
            flush()
            out.append(_html_table(child))
        elif child.name == "pre":
            flush()
            out.append(child.get_text().strip("\n"))
        elif child.name in BLOCK_HTML_TAGS:
            flush()
            stack.append(iter(child.children))
        elif child.name in CODE_TAGS:
            run.append(child.get_text())
        elif child.find(["img", *BLOCK_HTML_TAGS]) is not None:
            stack.append(iter(child.children))  # a link around an image or a block
        else:
            run.append(replace_math(child.get_text(), backslash_delimiters=True))
    return [p for p in out if p]


def _html_table(table: Tag) -> str:
    """The table's own rows, one line each, its cells joined by `|`. A table nested in a cell is
    that cell's text: its rows are not listed again (and each cell is read once, so tables
    nested thousands deep read in linear time)."""
    rows = []
    for tr in _own_rows(table):
        cells = [
            clean_inline(c.get_text(" ", strip=True))
            for c in tr.find_all(["th", "td"], recursive=False)
        ]
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def _own_rows(table: Tag) -> list[Tag]:
    rows = []
    for child in table.find_all(["tr", "thead", "tbody", "tfoot"], recursive=False):
        rows += child.find_all("tr", recursive=False) if child.name != "tr" else [child]
    return rows
