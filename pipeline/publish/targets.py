"""Where a publish may write, checked before anything is written: a site folder never in (or
holding) the source folder or the build it publishes; a branch only by a name git itself
accepts, never the one checked out; and a version read back from a branch only as a plain
version name, never as a path. Each refusal is one line naming the target and the way out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pipeline.errors import PublishRefused, UsageError
from pipeline.paths import overlapping

# What `_new_version_name` and the branch publish write: `20260101T120000Z`, `…Z-2`.
VERSION_PATTERN = re.compile(r"\d{8}T\d{6}Z(?:-\d{1,6})?")
UNSTAMPED_VERSION = "previous"  # the history name of a page published without a stamp
SYMLINK_MODE, SUBMODULE_MODE = "120000", "160000"
SITE_FILES = ("index.html", ".nojekyll")  # what a publish writes at the site's top level


def refuse_folder_target(root: Path, name: str, *, build_dir: Path, source: Path | None) -> None:
    """`--to DIR` (or the default site folder): the site folder must not lie in the source folder
    (the next ingest would read the published pages as articles) or in the build folder, and
    the page's folder `DIR/<name>` must neither be, hold, nor lie in either of them (publishing
    over the build overwrites the page it ships). Paths are compared resolved (symlinks too)."""
    page_dir = root / name
    for what, folder in (("the source folder", source), ("the build folder", build_dir)):
        if folder is None:
            continue
        if overlapping(page_dir, folder) or root.resolve().is_relative_to(folder.resolve()):
            raise UsageError(
                f"--to {root}: publishing there would write into {what} {folder} "
                f"(as {page_dir.resolve()}); give --to a folder outside both"
            )


def refuse_branch_name(branch: str, checked_format: str | None) -> None:
    """`--to git:BRANCH`: only a name `git check-ref-format --branch` accepts unchanged
    (`checked_format` is what it printed, None when it refused); never an option-like name, `@`
    or `HEAD`, which git commands read as something else."""
    if not branch or branch.startswith("-") or branch in ("@", "HEAD") or checked_format != branch:
        raise UsageError(
            f"--to git:{branch}: not a branch name git accepts (`git check-ref-format --branch`); "
            "give a plain one, e.g. git:gh-pages"
        )


def refuse_checked_out(branch: str, checked_out: set[str]) -> None:
    """Committing to a branch some work tree has checked out would change that work tree's
    branch under it (the user's files then show staged changes)."""
    if f"refs/heads/{branch}" in checked_out:
        raise UsageError(
            f"--to git:{branch}: that branch is checked out here (or in another work tree); "
            "publish to a branch nobody works on, e.g. git:gh-pages"
        )


def refuse_unsafe_entries(branch: str, name: str, entries: list[tuple[str, str, str]]) -> None:
    """The branch's tree (`(mode, type, path)` of every entry, as `git ls-tree -r -t` lists
    them): what a publish rewrites (`<name>/`, the site index) must be plain files and folders.
    A symlink there, checked out to move the old version aside, would lead the move (or the
    write) out of the temporary tree onto this machine's files."""
    for mode, kind, path in entries:
        touched = path == name or path.startswith(f"{name}/") or path in SITE_FILES
        if not touched:
            continue
        if mode in (SYMLINK_MODE, SUBMODULE_MODE):
            raise PublishRefused(
                f"git:{branch}: {path} on the branch is a "
                f"{'symlink' if mode == SYMLINK_MODE else 'submodule'}, which publish never "
                "writes through; remove it from the branch (or publish to another one)"
            )
        if path == name and kind != "tree":
            raise PublishRefused(
                f"git:{branch}: {path} on the branch is a file, not the page's folder; remove it "
                "from the branch (or choose another publish.name)"
            )


def published_version(branch: str, stamp_path: str, text: str | None) -> str:
    """The version named by the branch's `<name>/published.json` (`text`, None when there is
    none) — validated as a version name: anyone who can push to the branch writes this file,
    and it names the folder the old version moves to."""
    if text is None:
        return UNSTAMPED_VERSION
    try:
        stamp = json.loads(text)
    except (ValueError, RecursionError):
        stamp = None
    if not isinstance(stamp, dict):
        raise PublishRefused(
            f"git:{branch}: {stamp_path} is not a JSON object; fix or delete it on the branch"
        )
    version = stamp.get("version", UNSTAMPED_VERSION)
    if not isinstance(version, str) or not (
        version == UNSTAMPED_VERSION or VERSION_PATTERN.fullmatch(version)
    ):
        shown = json.dumps(version, ensure_ascii=True)[:80]
        raise PublishRefused(
            f"git:{branch}: {stamp_path} names version {shown}, which is not a version name "
            "(like 20260101T120000Z); fix or delete it on the branch"
        )
    return version
