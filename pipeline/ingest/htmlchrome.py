"""Site chrome in a saved HTML page: navigation, sidebars, headers and footers, skip links,
"on this page" lists and tables of contents, found by tag, ARIA role and telling class names,
and removed before the article's text is read."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, Tag

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

def _drop_tables_of_contents(soup: BeautifulSoup) -> None:
    """An "On this page" heading and its list; any list whose every item is an in-page link."""
    for heading in soup.find_all(["h2", "h3", "h4", "h5", "h6", "p", "strong"]):
        if is_gone(heading) or not ON_THIS_PAGE.match(heading.get_text(" ", strip=True)):
            continue
        nxt = heading.find_next_sibling()
        if isinstance(nxt, Tag) and nxt.name in ("ul", "ol", "nav", "div"):
            nxt.decompose()
        heading.decompose()
    for lst in soup.find_all(["ul", "ol"]):
        if is_gone(lst):
            continue
        if lst.find("li", recursive=False) is None:
            continue
        anchors = lst.find_all("a", href=True)
        if (
            anchors
            and all(str(a["href"]).startswith("#") for a in anchors)
            and sum(len(a.get_text(strip=True)) for a in anchors)
            >= len(lst.get_text(strip=True)) * 0.9
        ):
            lst.decompose()
