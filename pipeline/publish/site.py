"""The published site's shared layout, used by both ways of publishing (a local folder and a git
branch): which files of a build are published, version names and their order, the bounded
history, and the site index that lists every page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pipeline.artifacts.review import PAGE_DIRS, PAGE_FILES, REVIEW_FILE, WORKING_PICTURES
from pipeline.atomic import read_json_object, write_atomic
from pipeline.templating import html_environment

# The page's files, and its review (the next review reads the numbers it recorded).
PUBLISHED_FILES = (*PAGE_FILES, REVIEW_FILE)
PUBLISHED_DIRS = PAGE_DIRS
TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"


def version_order(name: str) -> tuple[str, int]:
    """Sort key of version names: the timestamp, then the same-second counter (`…Z-2` < `…Z-10`)."""
    stamp, _, counter = name.partition("-")
    return stamp, int(counter) if counter.isdigit() else 0


def prune_history(history: Path, keep_old: int) -> list[Path]:
    """Delete all but the newest `keep_old` entries of `history/`; return what was deleted."""
    entries = sorted(
        (p for p in history.iterdir() if p.is_dir()), key=lambda p: version_order(p.name)
    )
    doomed = entries[: max(0, len(entries) - keep_old)]
    for old in doomed:
        shutil.rmtree(old)
    return doomed


def copy_build(build_dir: Path, dest: Path) -> None:
    """The published files of a build (those present) into `dest`, which must not exist."""
    dest.mkdir(parents=True)
    for item in PUBLISHED_FILES:
        if (build_dir / item).is_file():
            shutil.copy2(build_dir / item, dest / item)
    for item in PUBLISHED_DIRS:
        if (build_dir / item).is_dir():
            # annotated-* copies are the check's working pictures, not part of the page
            shutil.copytree(
                build_dir / item, dest / item, ignore=shutil.ignore_patterns(WORKING_PICTURES)
            )


def _published_pages(root: Path) -> list[dict[str, str]]:
    pages = []
    for page_dir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not (page_dir / "index.html").is_file():
            continue
        plan = read_json_object(page_dir / "plan.json") or {}
        current = page_dir / "current"
        version = os.readlink(current).split("/")[-1] if current.is_symlink() else ""
        stamp = read_json_object(page_dir / "published.json") or {}
        pages.append(
            {
                "name": page_dir.name,
                "title": str(plan.get("title", page_dir.name)),
                "lang": str(plan.get("lang", "")),
                "version": version or str(stamp.get("version", "")),
            }
        )
    return pages


def write_site_index(root: Path) -> Path:
    """`root/index.html` listing every published page (temp file + rename)."""
    html = html_environment().get_template("site_index.html.j2").render(pages=_published_pages(root))
    out = root / "index.html"
    write_atomic(out, html)
    return out
