"""Front matter of saved posts: YAML between `---` lines (Jekyll, Hugo, MkDocs, Docusaurus) and
TOML between `+++` lines (Hugo). Read with PyYAML and the standard library's `tomllib`; only the
title, the article's URL, its date and its language are used.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml

YAML_BLOCK = re.compile(r"\A(?:[ \t]*\n)*---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
TOML_BLOCK = re.compile(r"\A(?:[ \t]*\n)*\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*(?:\n|\Z)", re.S)
# Keys that name the article's own address, most trusted first. A relative permalink
# ("/2023/06/20/vllm.html") says nothing without the site's address and is not used.
URL_KEYS = (
    "canonical_url",
    "canonicalurl",
    "canonical",
    "url",
    "permalink",
    "link",
    "original_url",
    "source_url",
    "source",
)
DATE_KEYS = ("date", "published", "publishdate", "pubdate", "created")
LANG_KEYS = ("lang", "language", "locale")
# `key: value` lines, for front matter that is not valid YAML (a colon in an unquoted title).
LOOSE_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*[:=]\s*(.*)$")


@dataclass(frozen=True)
class FrontMatter:
    """What a front matter block says about the article, and where the body starts."""

    kind: str  # "yaml" | "toml" | "" (none)
    body: str
    title: str | None = None
    url: str | None = None
    date: str | None = None
    lang: str | None = None


def split_front_matter(text: str) -> FrontMatter:
    """The front matter at the top of `text` (YAML or TOML) and the text after it."""
    for kind, pattern in (("yaml", YAML_BLOCK), ("toml", TOML_BLOCK)):
        m = pattern.match(text)
        if m:
            data = _load(kind, m.group(1))
            return FrontMatter(
                kind=kind,
                body=text[m.end() :],
                title=_text(_first(data, ("title",))),
                url=_url(data),
                date=_date(_first(data, DATE_KEYS)),
                lang=_text(_first(data, LANG_KEYS)),
            )
    return FrontMatter(kind="", body=text)


def _load(kind: str, block: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(block) if kind == "yaml" else tomllib.loads(block)
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError):
        data = _loose(block)
    if not isinstance(data, dict):
        return {}
    return {str(k).lower(): v for k, v in data.items()}


def _loose(block: str) -> dict[str, str]:
    """`key: value` / `key = "value"` lines of a block its parser rejected."""
    out: dict[str, str] = {}
    for line in block.splitlines():
        m = LOOSE_LINE.match(line)
        if m:
            value = m.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[m.group(1).lower()] = value
    return out


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if data.get(key) not in (None, "", []):
            return data[key]
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = re.sub(r"\s+", " ", str(value)).strip()
        return text or None
    return None


def _url(data: dict[str, Any]) -> str | None:
    for key in URL_KEYS:
        value = _text(data.get(key))
        if value and re.match(r"^https?://[^\s/]+", value, flags=re.I):
            return value
    return None


def _date(value: Any) -> str | None:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return _text(value)
