"""`tujie publish --to git:BRANCH`: commit the site to a branch of the current repository (e.g.
for GitHub Pages) with git plumbing, a temporary index and a temporary work tree, so the user's
working tree, index and checked-out branch are never touched. Pushes only when asked.

The branch is read before anything is written (`pipeline.publish.targets`): its name as git
accepts it, not a checked-out branch, no symlink where the page goes, and a version stamp that is
a plain version name. The temporary tree is checked out without symlinks (`core.symlinks=false`):
whatever else the branch holds, nothing in it can point the publish out of the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pipeline.errors import OutputError, UsageError
from pipeline.publish.site import TIMESTAMP_FORMAT, copy_build, prune_history, write_site_index
from pipeline.publish.targets import (
    published_version,
    refuse_branch_name,
    refuse_checked_out,
    refuse_unsafe_entries,
)

GIT_TIMEOUT_S = 60.0
PUSH_TIMEOUT_S = 300.0
NO_SYMLINKS = ("-c", "core.symlinks=false")  # a symlink on the branch is checked out as a file
FALLBACK_IDENTITY = {"name": "tujie", "email": "tujie@localhost"}
STAMP_FILE = "published.json"


def _git(
    repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = GIT_TIMEOUT_S
) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise OutputError(f"git {args[0]} failed: {err}") from None
    if done.returncode != 0:
        raise OutputError(f"git {args[0]} failed: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout.strip()


def _repo_root() -> Path:
    try:
        return Path(_git(Path.cwd(), "rev-parse", "--show-toplevel"))
    except OutputError:
        raise UsageError("--to git:BRANCH needs to run inside a git repository") from None


def _identity_env(repo: Path, env: dict[str, str]) -> dict[str, str]:
    """Author/committer from git config, else a neutral fallback (commit-tree needs one)."""
    out = dict(env)
    for key, fallback in FALLBACK_IDENTITY.items():
        try:
            value = _git(repo, "config", f"user.{key}")
        except OutputError:
            value = ""
        out.setdefault(f"GIT_AUTHOR_{key.upper()}", value or fallback)
        out.setdefault(f"GIT_COMMITTER_{key.upper()}", value or fallback)
    return out


def _checked_out_branches(repo: Path) -> set[str]:
    """The branches checked out in this repository's work trees (`refs/heads/...`)."""
    listing = _git(repo, "worktree", "list", "--porcelain")
    return {line.split(" ", 1)[1] for line in listing.splitlines() if line.startswith("branch ")}


def _branch_name_format(repo: Path, branch: str) -> str | None:
    """What `git check-ref-format --branch` makes of `branch` (None: it refuses the name)."""
    try:
        return _git(repo, "check-ref-format", "--branch", branch)
    except OutputError:
        return None


def _old_version(repo: Path, parent: str, branch: str, name: str) -> str:
    """Read the branch before anything is written: refuse what publish must not write through,
    and return the version its page was stamped with (a plain version name)."""
    listing = _git(repo, "ls-tree", "-r", "-t", "-z", "--full-tree", parent)
    entries = []
    blobs: dict[str, str] = {}
    for record in filter(None, listing.split("\0")):
        meta, _, path = record.partition("\t")
        mode, kind, sha = meta.split(" ")
        entries.append((mode, kind, path))
        blobs[path] = sha
    refuse_unsafe_entries(branch, name, entries)
    stamp_path = f"{name}/{STAMP_FILE}"
    if f"{name}/index.html" not in blobs:
        return ""  # no page there yet: nothing moves to history
    stamp_sha = blobs.get(stamp_path)
    text = _git(repo, "cat-file", "blob", stamp_sha) if stamp_sha else None
    return published_version(branch, stamp_path, text)


def _materialize(
    build_dir: Path, tree: Path, name: str, version: str, keep: int, old_version: str
) -> None:
    """Real files (no symlinks: Pages hosts do not follow them); the previous version (stamped
    `old_version`, "" when there is none) moves to `<name>/history/<old_version>/` first, and
    only the newest `keep - 1` of those stay."""
    page_dir = tree / name
    if old_version:
        old = page_dir / "history" / old_version
        old.mkdir(parents=True, exist_ok=True)
        for item in page_dir.iterdir():
            if item.name != "history":
                shutil.move(str(item), str(old / item.name))
        prune_history(page_dir / "history", keep - 1)
    staging = tree / f".new-{name}"
    copy_build(build_dir, staging)
    page_dir.mkdir(exist_ok=True)
    for item in staging.iterdir():
        shutil.move(str(item), str(page_dir / item.name))
    staging.rmdir()
    (page_dir / STAMP_FILE).write_text(json.dumps({"version": version}) + "\n", encoding="utf-8")
    (tree / ".nojekyll").write_text("", encoding="utf-8")
    write_site_index(tree)


def publish_to_branch(
    build_dir: Path, *, name: str, branch: str, push: bool, base_url: str | None, keep: int
) -> tuple[str, str]:
    """Commit the site with page `name` updated to `branch`; return (address, version)."""
    repo = _repo_root()
    refuse_branch_name(branch, _branch_name_format(repo, branch))
    refuse_checked_out(branch, _checked_out_branches(repo))
    ref = f"refs/heads/{branch}"
    try:
        parent: str | None = _git(repo, "rev-parse", "--verify", "--quiet", ref)
    except OutputError:
        parent = None
    old_version = _old_version(repo, parent, branch, name) if parent else ""
    version = datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    with tempfile.TemporaryDirectory(prefix="tujie-publish-") as scratch:
        tree = Path(scratch) / "tree"
        tree.mkdir()
        env = _identity_env(repo, {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")})
        worktree = ("--work-tree", str(tree))
        if parent:
            _git(repo, *worktree, "read-tree", parent, env=env)
            _git(repo, *NO_SYMLINKS, *worktree, "checkout-index", "--all", env=env)
        _materialize(build_dir, tree, name, version, keep, old_version)
        _git(repo, *NO_SYMLINKS, *worktree, "add", "--all", ".", env=env)
        tree_id = _git(repo, "write-tree", env=env)
        parents = ["-p", parent] if parent else []
        message = f"publish {name} {version}"
        commit = _git(repo, "commit-tree", tree_id, *parents, "-m", message, env=env)
        _git(repo, "update-ref", ref, commit, *([parent] if parent else []))
    if push:
        _git(repo, "push", "origin", f"{ref}:{ref}", timeout=PUSH_TIMEOUT_S)
    address = f"{base_url.rstrip('/')}/{name}/" if base_url else f"git:{branch}:{name}/index.html"
    return address, version
