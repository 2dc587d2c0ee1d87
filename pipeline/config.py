"""The folder's `page.toml`: title, language, the concept the reader is stuck on, progress stamps,
publish settings. Every key is known; an unknown or mistyped key is an error naming it."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pipeline.errors import ConfigError
from pipeline.reader import CONFIG, FileRefused, read_text
from pipeline.urls import has_credentials

MAX_TITLE = 40  # = Plan.title's max_length

CONFIG_FILE = "page.toml"
# A page name is a folder under output/ and under the site: a plain slug, and never a name the
# site itself uses (`site` is the site folder inside output/, `index.html` the site's index).
# Matched whole (`fullmatch`): `$` would also match before a final newline.
PAGE_NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
RESERVED_PAGE_NAMES = frozenset({"site", "index.html"})
PAGE_NAME_RULE = (
    "a plain slug: 1-64 lowercase letters, digits and '-', starting with a letter or digit, "
    "and not 'site'"
)
DEFAULT_KEEP_VERSIONS = 10


def page_name_problem(name: str) -> str | None:
    """Why `name` cannot name a page (None when it can)."""
    if name in RESERVED_PAGE_NAMES:
        return f"{name!r} is reserved; the name must be {PAGE_NAME_RULE}"
    if not PAGE_NAME_PATTERN.fullmatch(name):
        return f"{name!r} is not {PAGE_NAME_RULE}"
    return None


def page_name_from_folder(folder_name: str) -> str:
    """The page name derived from a source folder's name: its slug (`My Notes_2` → `my-notes-2`);
    when nothing usable is left (a Chinese name, `site`), `page-` + a hash of the folder name."""
    slug = re.sub(r"[^a-z0-9]+", "-", folder_name.lower()).strip("-")[:64].rstrip("-")
    if page_name_problem(slug) is None:
        return slug
    return "page-" + hashlib.sha256(folder_name.encode("utf-8", "surrogateescape")).hexdigest()[:8]


class PublishSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    base_url: str | None = Field(default=None, pattern=r"^https?://")
    keep: int = Field(default=DEFAULT_KEEP_VERSIONS, ge=1, strict=True)

    @field_validator("name")
    @classmethod
    def _plain_slug(cls, name: str | None) -> str | None:
        problem = page_name_problem(name) if name is not None else None
        if problem:
            raise ValueError(problem)
        return name

    @field_validator("base_url")
    @classmethod
    def _no_credentials(cls, url: str | None) -> str | None:
        if url is not None and has_credentials(url):
            raise ValueError(
                "carries credentials (user:password@): the printed address must not; drop them"
            )
        return url


class PageConfig(BaseModel):
    """What the user may set per folder. Everything is optional."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("field", mode="before")
    @classmethod
    def _one_or_more(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    # The page title replaces the plan's, so it keeps the plan's limit (pipeline.plan.model).
    title: str | None = Field(default=None, min_length=1, max_length=MAX_TITLE)
    lang: Literal["zh", "en"] = "zh"
    stuck: list[str] = Field(default_factory=list)
    # The field(s) the page draws with (`tujie fields` lists them), instead of the ones detected
    # from the articles (`pipeline.fields.detect`); the general field is always offered too.
    field: list[str] = Field(default_factory=list)
    progress: dict[str, Literal["learned", "review", "next"]] = Field(default_factory=dict)
    publish: PublishSettings = Field(default_factory=PublishSettings)


def load_config(folder: Path) -> PageConfig:
    """Read `folder/page.toml` (absent → defaults) through `pipeline.reader` (a regular file
    inside the folder, at most MAX_CONFIG_BYTES, UTF-8); ConfigError names the file and the key."""
    path = folder / CONFIG_FILE
    try:
        text = read_text(path, folder, CONFIG)
    except FileRefused as why:
        if why.missing:
            return PageConfig()
        raise ConfigError(f"{path}: {why}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply)") from None
    try:
        return PageConfig.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(root)"
        problem = {
            "extra_forbidden": "unknown key",
            "value_error": str(first.get("ctx", {}).get("error", first["msg"])),
        }.get(first["type"], first["msg"])
        raise ConfigError(
            f"{path}: {key}: {problem} (known keys: title, lang, stuck, field, progress, publish.name, "
            f"publish.base_url, publish.keep)"
        ) from None
