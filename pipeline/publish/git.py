"""`tujie publish --to git:BRANCH`: commit the site to a branch of the current repository (e.g.
for GitHub Pages) with git plumbing, a temporary index and a temporary work tree, so the user's
working tree, index and checked-out branch are never touched. Pushes only when asked.
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

GIT_TIMEOUT_S = 60.0
PUSH_TIMEOUT_S = 300.0
BRANCH_PATTERN_FORBIDDEN = (" ", "..", "~", "^", ":", "\\", "?", "*", "[")
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


def _materialize(build_dir: Path, tree: Path, name: str, version: str, keep: int) -> None:
    """Real files (no symlinks: Pages hosts do not follow them); the previous version moves to
    `<name>/history/<its version>/` first, and only the newest `keep - 1` of those stay."""
    page_dir = tree / name
    if (page_dir / "index.html").exists():
        stamp = (
            json.loads((page_dir / STAMP_FILE).read_text(encoding="utf-8"))
            if (page_dir / STAMP_FILE).exists()
            else {}
        )
        old = page_dir / "history" / str(stamp.get("version", "previous"))
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
    if not branch or any(bad in branch for bad in BRANCH_PATTERN_FORBIDDEN):
        raise UsageError(f"--to git:{branch} is not a usable branch name")
    repo = _repo_root()
    ref = f"refs/heads/{branch}"
    try:
        parent: str | None = _git(repo, "rev-parse", "--verify", "--quiet", ref)
    except OutputError:
        parent = None
    version = datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    with tempfile.TemporaryDirectory(prefix="tujie-publish-") as scratch:
        tree = Path(scratch) / "tree"
        tree.mkdir()
        env = _identity_env(repo, {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")})
        worktree = ("--work-tree", str(tree))
        if parent:
            _git(repo, *worktree, "read-tree", parent, env=env)
            _git(repo, *worktree, "checkout-index", "--all", env=env)
        _materialize(build_dir, tree, name, version, keep)
        _git(repo, *worktree, "add", "--all", ".", env=env)
        tree_id = _git(repo, "write-tree", env=env)
        parents = ["-p", parent] if parent else []
        message = f"publish {name} {version}"
        commit = _git(repo, "commit-tree", tree_id, *parents, "-m", message, env=env)
        _git(repo, "update-ref", ref, commit, *([parent] if parent else []))
    if push:
        _git(repo, "push", "origin", f"{ref}:{ref}", timeout=PUSH_TIMEOUT_S)
    address = f"{base_url.rstrip('/')}/{name}/" if base_url else f"git:{branch}:{name}/index.html"
    return address, version
