"""Site chrome in a saved HTML page: navigation, sidebars, headers and footers, skip links,
"on this page" lists and tables of contents, found by tag, ARIA role and telling class names,
and removed before the article's text is read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bs4 import BeautifulSoup, CData, Comment, NavigableString, PageElement, Tag

DROPPED_HTML_TAGS = [
    "head",
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
    "dialog",
    "select",
    "input",
    "textarea",
    "link",
    "meta",
]

# Roles of site chrome (ARIA landmarks that are not the article).
CHROME_ROLES = {
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "menu",
    "menubar",
    "dialog",
}

# Class or id words of site chrome, matched as whole words of the attribute ("site-nav",
# "toc", "skip-link", "post-meta"); never applied to an element holding the article itself.
CHROME_WORDS = re.compile(
    r"(?:^|[\s_-])(?:skip|skiplink|sidebar|toc|breadcrumbs?|share|sharing|social|related|"
    r"comments?|cookies?|newsletter|subscribe|pagination|pager|advert|ads|promo|masthead|"
    r"navbar|menu|byline|post-meta|entry-meta|article-meta|post-nav|site-header|site-footer|"
    r"site-nav|theme-toggle|edit-?this|headerlink|hash-link|anchorjs-link|heading-anchor)"
    r"(?:$|[\s_-])",
    re.I,
)

# Headings of an in-page table of contents.
ON_THIS_PAGE = re.compile(
    r"^\s*(on this page|in this (article|post|page)|table of contents|contents|本页目录|"
    r"本文目录|文章目录|目录|页面导航)\s*[:：]?\s*$",
    re.I,
)

# The longest heading ON_THIS_PAGE can match, with room for spaces, and the most elements and
# strings such a heading holds (`<h2><span>On this page</span></h2>`): a heading past either is
# not read whole (headings nested in each other, as unclosed <p>s are, made that quadratic).
TOC_HEADING_MAX_CHARS = 40
TOC_HEADING_MAX_NODES = 16
SKIP_LINK = re.compile(r"^\s*(skip to|jump to|跳到|跳转到|跳至)", re.I)

def strip_page(soup: BeautifulSoup) -> None:
    """Drop what a reader of the article never reads: comments, scripts, chrome, tables of
    contents, skip links, decorative heading anchors. (Formulas are turned into text before
    this, since their scripts are dropped here.)"""
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(DROPPED_HTML_TAGS):
        tag.decompose()
    # A page header outside the article is site chrome; inside it, it holds the article's h1.
    for tag in soup.find_all("header"):
        if tag.find_parent(["article", "main"]) is None and tag.find("h1") is None:
            tag.decompose()
    for tag in soup.find_all(_is_chrome):
        if not is_gone(tag):
            tag.decompose()
    for link in soup.find_all("a", href=re.compile(r"^#")):
        if not is_gone(link) and SKIP_LINK.match(link.get_text(" ", strip=True)):
            link.decompose()
    _drop_tables_of_contents(soup)

def is_gone(tag: Tag) -> bool:
    """Whether `tag` was decomposed. Not `tag.decomposed`: on a live tag, bs4 answers it by
    searching the whole subtree for a child element named "_decomposed"."""
    return bool(vars(tag).get("_decomposed"))

def _is_chrome(tag: Tag) -> bool:
    if tag.name in ("html", "body", "main", "article", "h1"):
        return False
    if tag.get("aria-hidden") == "true" and tag.name not in ("img", "figure", "picture"):
        return True
    role = str(tag.get("role") or "").lower()
    words = " ".join([*_attr_words(tag, "class"), *_attr_words(tag, "id")])
    if role not in CHROME_ROLES and not CHROME_WORDS.search(words):
        return False
    # Never the element that holds the article (a layout wrapper named "has-sidebar").
    return tag.find(["article", "main", "h1"]) is None

def _attr_words(tag: Tag, name: str) -> list[str]:
    value = tag.get(name)
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value else []

def _short_text(tag: Tag) -> str:
    """`tag.get_text(" ", strip=True)` when it is at most TOC_HEADING_MAX_CHARS long, else "";
    walked by hand and only that far (bs4's own string iterators first walk down to the last
    descendant, which for headings nested in each other is quadratic)."""
    parts: list[str] = []
    size = visited = 0
    stack = [iter(tag.children)]
    while stack:
        child = next(stack[-1], None)
        visited += 1
        if child is None:
            stack.pop()
        elif visited > TOC_HEADING_MAX_NODES:
            return ""
        elif isinstance(child, Tag):
            stack.append(iter(child.children))
        elif isinstance(child, NavigableString) and not isinstance(child, Comment):
            text = child.strip()
            size += len(text) + 1 if text else 0
            if size > TOC_HEADING_MAX_CHARS + 1:
                return ""
            parts += [text] if text else []
    return " ".join(parts)


def _drop_tables_of_contents(soup: BeautifulSoup) -> None:
    """An "On this page" heading and its list; any list whose every item is an in-page link."""
    for heading in soup.find_all(["h2", "h3", "h4", "h5", "h6", "p", "strong"]):
        if is_gone(heading) or not ON_THIS_PAGE.match(_short_text(heading)):
            continue
        nxt = heading.find_next_sibling()
        if isinstance(nxt, Tag) and nxt.name in ("ul", "ol", "nav", "div"):
            nxt.decompose()
        heading.decompose()
    links = _link_counts(soup)  # once for the page: per list, find_all would be quadratic
    for lst in soup.find_all(["ul", "ol"]):
        if is_gone(lst):
            continue
        if lst.find("li", recursive=False) is None:
            continue
        counts = links[id(lst)]
        if counts.anchors and counts.in_page and counts.anchor_text >= counts.text * 0.9:
            lst.decompose()


@dataclass
class _LinkCounts:
    """Of one element's subtree: its text's length (as `get_text(strip=True)`), its links
    (`<a href>`), whether every link is in-page (`#…`), and their text's length."""

    text: int = 0
    anchors: int = 0
    in_page: bool = True
    anchor_text: int = 0

    def add(self, child: _LinkCounts) -> None:
        self.text += child.text
        self.anchors += child.anchors
        self.in_page = self.in_page and child.in_page
        self.anchor_text += child.anchor_text


def _link_counts(root: Tag) -> dict[int, _LinkCounts]:
    """`_LinkCounts` of every element under `root` (by `id`), in one walk of the tree."""
    counts: dict[int, _LinkCounts] = {}
    stack: list[tuple[Tag, Iterator[PageElement], _LinkCounts]] = [
        (root, iter(root.children), _LinkCounts())
    ]
    while stack:
        tag, children, mine = stack[-1]
        child = next(children, None)
        if isinstance(child, Tag):
            stack.append((child, iter(child.children), _LinkCounts()))
        elif child is not None:
            if type(child) in (NavigableString, CData):  # the strings get_text counts
                mine.text += len(str(child).strip())
        else:
            stack.pop()
            if tag.name == "a" and tag.has_attr("href"):
                mine.anchors += 1
                mine.anchor_text += mine.text
                mine.in_page = mine.in_page and str(tag["href"]).startswith("#")
            counts[id(tag)] = mine
            if stack:
                stack[-1][2].add(mine)
    return counts
