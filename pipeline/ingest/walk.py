"""Walking an input folder safely: which files may be read, and why the others are left alone.

Ingest reads the files `walk_folder` returns and records its skips; the build hashes the same
files to decide whether ingest must run again. Nothing outside the folder's real path is ever
read: a symlink whose target lies outside is skipped with the reason, symlinked folders are not
followed (no loops, no escapes), and names that are not valid UTF-8 are given a printable form.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.reader import link_target, printable, symlink_problem


@dataclass(frozen=True)
class FolderFile:
    """One readable regular file: where it is on disk and its printable relative name."""

    path: Path
    rel: str


@dataclass(frozen=True)
class FolderSkip:
    """One entry of the folder that is not read, and why (the reason shown to the user)."""

    rel: str
    reason: str


@dataclass
class FolderWalk:
    """The result of `walk_folder`: readable files sorted by name, and the skipped entries."""

    files: list[FolderFile] = field(default_factory=list)
    skipped: list[FolderSkip] = field(default_factory=list)


def walk_folder(src: Path) -> FolderWalk:
    """Every file under `src` that may be read, sorted by relative name; hidden entries (.git,
    .DS_Store) are ignored silently; symlinks and special files are skipped with a reason."""
    root = src.resolve()
    walk = FolderWalk()
    for dirpath, dirs, names in os.walk(src):
        here = Path(dirpath)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and _descend(here / d, src, root, walk)
        )
        for name in sorted(n for n in names if not n.startswith(".")):
            _consider_file(here / name, src, root, walk)
    walk.files.sort(key=lambda f: f.rel)
    walk.skipped.sort(key=lambda s: s.rel)
    return walk


def _rel(path: Path, src: Path) -> str:
    return printable(path.relative_to(src).as_posix())


def _descend(path: Path, src: Path, root: Path, walk: FolderWalk) -> bool:
    """Whether to walk into a sub-folder: never through a symlink. A target inside the folder is
    walked where it lies (following the link could loop); one outside must not be read at all."""
    if not path.is_symlink():
        return True
    why = symlink_problem(path, root) or (
        f"symlinked folder not followed ({link_target(path)}; its files are read where they lie)"
    )
    walk.skipped.append(FolderSkip(_rel(path, src), why))
    return False


def _consider_file(path: Path, src: Path, root: Path, walk: FolderWalk) -> None:
    rel = _rel(path, src)
    why = _why_unreadable(path, root)
    if why is None:
        walk.files.append(FolderFile(path, rel))
    else:
        walk.skipped.append(FolderSkip(rel, why))


def _why_unreadable(path: Path, root: Path) -> str | None:
    """None when `path` is a regular file inside `root`; else why it must not be read."""
    if path.is_symlink():
        problem = symlink_problem(path, root)
        if problem:
            return problem
    try:
        mode = path.stat().st_mode
    except OSError as err:
        return f"cannot be read ({err.strerror or type(err).__name__})"
    if not stat.S_ISREG(mode):
        return "not a regular file (device, pipe or socket)"
    return None
