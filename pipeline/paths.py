"""Where tujie's own files are: the page templates and LLM prompts (package data), and the cache
of what is fetched on first use (fonts and axe-core from the npm registry, font subsets, link
results).

From a checkout (`make page`), the templates and prompts are the repository's top-level folders
and the cache is `.cache/` beside them. Installed from a wheel (`pipx install`, `uv tool install`,
`pip install`), the same folders ship inside the package (`pyproject.toml` maps them there) and
the cache is the per-user cache directory (platformdirs). `TUJIE_CACHE` overrides either.
And `overlapping`, how the build and publish tell that a folder they write lies in one they read.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
CACHE_ENV = "TUJIE_CACHE"
APP_NAME = "tujie"


def in_checkout() -> bool:
    """True when running from a source checkout (the repository's templates/ beside pipeline/)."""
    return (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "templates").is_dir()


def _data_dir(name: str) -> Path:
    return REPO_ROOT / name if in_checkout() else PACKAGE_DIR / name


def templates_dir() -> Path:
    """The page, review and site templates (and the page's CSS/JS and the browser probe)."""
    return _data_dir("templates")


def prompts_dir() -> Path:
    """The LLM prompt templates."""
    return _data_dir("prompts")


def cache_dir() -> Path:
    """`$TUJIE_CACHE`, else `.cache/` in a checkout, else the per-user cache directory."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    if in_checkout():
        return REPO_ROOT / ".cache"
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def overlapping(a: Path, b: Path) -> bool:
    """Whether `a` and `b` are the same folder or one lies inside the other, compared resolved
    (symlinks followed as far as the paths exist): writing into one would write into the other."""
    real_a, real_b = a.resolve(), b.resolve()
    return real_a.is_relative_to(real_b) or real_b.is_relative_to(real_a)
