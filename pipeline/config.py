"""The folder's `page.toml`: title, language, the concept the reader is stuck on, progress stamps,
publish settings. Every key is known; an unknown or mistyped key is an error naming it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.errors import ConfigError

CONFIG_FILE = "page.toml"


class PublishSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    base_url: str | None = Field(default=None, pattern=r"^https?://")


class PageConfig(BaseModel):
    """What the user may set per folder. Everything is optional."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    lang: Literal["zh", "en"] = "zh"
    stuck: list[str] = Field(default_factory=list)
    progress: dict[str, Literal["learned", "review", "next"]] = Field(default_factory=dict)
    publish: PublishSettings = Field(default_factory=PublishSettings)


def load_config(folder: Path) -> PageConfig:
    """Read `folder/page.toml` (absent → defaults); ConfigError names the file and the key."""
    path = folder / CONFIG_FILE
    if not path.exists():
        return PageConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot be read as UTF-8 ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err})") from None
    try:
        return PageConfig.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(root)"
        problem = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(
            f"{path}: {key}: {problem} (known keys: title, lang, stuck, progress, publish.name, "
            f"publish.base_url)"
        ) from None
