"""Titles of saved articles: site suffixes off, the file name as a title, and loose comparison.

People save an article under its title ("大模型推理框架概述.md", "Speculative decoding,
explained.md"), browsers keep the site's name in `<title>` ("… | kipply's blog"), and a reading
list copies a title by hand ("How Many Tokens Fit" for "How many tokens fit?"). This module
holds the rules for all three; `pipeline.ingest.matching` uses `title_similarity`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from difflib import SequenceMatcher

from pipeline.artifacts.sources import title_key as link_title_key
from pipeline.ingest.formats import TITLE_MAX_CHARS

# Separators between an article's title and its site's name in `<title>`.
SITE_SEPARATOR = re.compile(r"\s+(?:\||｜|–|—|-|·|::|»)\s+|\s*｜\s*|(?<=[\u3400-\u9fff])_")
# A segment after the last separator is taken for a site name (and dropped) only when it is this
# short; "Finding the knee - load testing an LLM server" keeps its second half.
SITE_NAME_MAX_CHARS = 24
SITE_NAME_MAX_WORDS = 3
# Leading numbering people put in front of saved files: "08-", "01 ", "3_", "12.".
FILE_NUMBERING = re.compile(r"^\d{1,4}(?:[\s._-]+)")
ASCII_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)+$")
# File names that say nothing about the article.
MEANINGLESS_NAMES = frozenset(
    {
        "index",
        "untitled",
        "document",
        "doc",
        "docs",
        "download",
        "file",
        "paper",
        "page",
        "article",
        "post",
        "readme",
        "main",
        "new",
        "copy",
        "scan",
        "print",
        "test",
    }
)


def clean_title(title: str | None) -> str | None:
    """One line, single spaces, at most TITLE_MAX_CHARS; None when nothing is left."""
    if not title:
        return None
    text = re.sub(r"\s+", " ", title).strip()
    return text[:TITLE_MAX_CHARS] or None


def strip_site_suffix(title: str, site_names: Iterable[str] = ()) -> str:
    """`title` without the site's name: a known name (og:site_name, the host) at either end is
    dropped after any separator; an unknown one only when it is short (SITE_NAME_MAX_*)."""
    text = title.strip()
    seps = list(SITE_SEPARATOR.finditer(text))
    if not seps:
        return text
    head, tail = text[: seps[-1].start()].strip(), text[seps[-1].end() :].strip()
    names = {_loose(n) for n in site_names if _loose(n)}
    if names:
        if head and _loose(tail) in names:
            return head
        lead, rest = text[: seps[0].start()].strip(), text[seps[0].end() :].strip()
        if rest and _loose(lead) in names:
            return rest
    short = len(tail) <= SITE_NAME_MAX_CHARS and len(tail.split()) <= SITE_NAME_MAX_WORDS
    if len(head) >= 2 and short:
        return head
    return text


def title_from_file_name(rel: str) -> str | None:
    """The title a file was saved under: numbering dropped ("08-大模型推理框架概述.md" →
    "大模型推理框架概述"), an ASCII slug spelled with spaces; None for names like "index" or
    "2309.06180v1" that carry no title."""
    name = rel.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    stem = unicodedata.normalize("NFC", stem).strip()
    bare = FILE_NUMBERING.sub("", stem).strip() or stem
    if ASCII_SLUG.match(bare):
        bare = re.sub(r"[-_]+", " ", bare)
    letters = [ch for ch in bare if unicodedata.category(ch).startswith("L")]
    if len(letters) < 2 or bare.lower() in MEANINGLESS_NAMES:
        return None
    if not any(_is_cjk(ch) for ch in letters) and not re.search(r"[A-Za-z]{3}", bare):
        return None  # "2309.06180v1", "a1-b2": an id, not a title
    return clean_title(bare)


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\u3040" <= ch <= "\u30ff" or "\uac00" <= ch <= "\ud7af"


def normalize_title(title: str) -> str:
    """Compare titles loosely: the site suffix off, then the link checker's normalisation (NFKC,
    case-folded, punctuation as spaces): "How Many Tokens Fit: KV Cache" ≡ "how many tokens fit?
    kv-cache"."""
    return link_title_key(strip_site_suffix(title))


def title_similarity(a: str, b: str) -> float:
    """`difflib.SequenceMatcher` ratio of the normalised titles (1.0: the same title)."""
    na, nb = normalize_title(a), normalize_title(b)
    if not na or not nb:
        return 0.0
    if na == nb:
        return 1.0
    return SequenceMatcher(None, na, nb, autojunk=False).ratio()


def _loose(text: str) -> str:
    return re.sub(r"[\s.]+", "", unicodedata.normalize("NFKC", text).casefold())
