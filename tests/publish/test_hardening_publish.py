"""Issue 22, publish targets: `tujie publish --to DIR` never writes into the source folder or the
build it ships, `--to git:BRANCH` only names a branch git accepts and nobody has checked out, and
whatever a branch holds (a version stamp naming a path, a non-JSON stamp, a symlink where the page
goes) is refused in one line — each time before anything is written. Real git repositories in
temporary folders, the real `tujie` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pipeline.errors import PublishRefused
from pipeline.publish.targets import published_version
from tests.publish.conftest import folder_with_build, git
from tests.tujie_process import one_error_line, tujie


def snapshot(*roots: Path) -> dict[str, str]:
    """Every file, folder and symlink under `roots`, with its bytes' hash or link target (the
    build folder's lock file aside: every command takes it)."""
    seen: dict[str, str] = {}
    for root in roots:
        if not root.exists() and not root.is_symlink():
            continue
        for path in [root, *sorted(root.rglob("*"))]:
            if path.name == ".build.lock":
                continue
            if path.is_symlink():
                seen[str(path)] = "-> " + os.readlink(path)
            elif path.is_file():
                seen[str(path)] = str(hash(path.read_bytes()))
            else:
                seen[str(path)] = "dir"
    return seen


def commit_to_branch(repo: Path, branch: str, entries: dict[str, tuple[str, bytes]]) -> str:
    """A commit on `branch` holding exactly `entries` (path -> (mode, content); mode 120000
    is a symlink whose content is its target), made with plumbing: nothing is checked out."""
    index = repo.parent / f"index-{branch.replace('/', '-')}"
    env = {"GIT_INDEX_FILE": str(index)}
    for path, (mode, content) in entries.items():
        blob = (
            subprocess.run(
                ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
                input=content,
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        git(repo, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}", env=env)
    tree = git(repo, "write-tree", env=env)
    commit = git(repo, "commit-tree", tree, "-m", "hand-made", env=env)
    git(repo, "update-ref", f"refs/heads/{branch}", commit)
    index.unlink()
    return commit


def a_published_page(stamp: bytes | None) -> dict[str, tuple[str, bytes]]:
    entries = {
        "index.html": ("100644", b"<p>site</p>"),
        "page/index.html": ("100644", b"<p>old page</p>"),
        "page/plan.json": ("100644", b"{}"),
    }
    if stamp is not None:
        entries["page/published.json"] = ("100644", stamp)
    return entries


def refs(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(refname) %(objectname)")


# --- --to DIR: never the source folder, never the build ----------------------------------------


def _into_the_source(tmp_path: Path, src: Path, out: Path) -> Path:
    return src / "site"


def _the_build_folder(tmp_path: Path, src: Path, out: Path) -> Path:
    return out / "page"


def _the_output_root(tmp_path: Path, src: Path, out: Path) -> Path:
    return out  # out/page is the build itself


def _a_symlink_into_the_source(tmp_path: Path, src: Path, out: Path) -> Path:
    link = tmp_path / "pages-link"
    link.symlink_to(src / "published", target_is_directory=True)
    return link


def _a_site_whose_page_folder_is_the_source(tmp_path: Path, src: Path, out: Path) -> Path:
    site = tmp_path / "elsewhere"
    site.mkdir()
    (site / "page").symlink_to(src, target_is_directory=True)
    return site


@pytest.mark.parametrize(
    "target",
    [
        _into_the_source,
        _the_build_folder,
        _the_output_root,
        _a_symlink_into_the_source,
        _a_site_whose_page_folder_is_the_source,
    ],
)
def test_publish_never_writes_into_the_source_or_the_build(tmp_path: Path, target) -> None:
    src, out = folder_with_build(tmp_path)
    (src / "notes.md").write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    to = target(tmp_path, src, out)
    before = snapshot(src, out, to)
    result = tujie("publish", str(src), "--out", str(out), "--to", str(to))
    assert result.returncode == 2, result.stderr
    line = one_error_line(result.stderr)
    assert "--to" in line and ("source folder" in line or "build folder" in line)
    assert snapshot(src, out, to) == before  # not even the site folder or its lock


def test_the_default_site_and_a_plain_folder_still_publish(tmp_path: Path) -> None:
    src, out = folder_with_build(tmp_path)
    assert tujie("publish", str(src), "--out", str(out)).returncode == 0
    elsewhere = tmp_path / "www"
    result = tujie("publish", str(src), "--out", str(out), "--to", str(elsewhere))
    assert result.returncode == 0, result.stderr
    assert (elsewhere / "page" / "index.html").is_file()


# --- --to git:BRANCH: names git accepts, never a checked-out branch -------------------------------


@pytest.mark.parametrize("branch", ["-x", "HEAD", "@", "a..b", "x.lock", "", "bad name", "@{-1}"])
def test_a_branch_name_git_refuses_is_one_line(tmp_path: Path, repo: Path, branch: str) -> None:
    src, out = folder_with_build(tmp_path)
    before = refs(repo)
    result = tujie("publish", str(src), "--out", str(out), "--to", f"git:{branch}", cwd=repo)
    assert result.returncode == 2, result.stderr
    assert "not a branch name git accepts" in one_error_line(result.stderr)
    assert refs(repo) == before


def test_the_checked_out_branch_is_refused(tmp_path: Path, repo: Path) -> None:
    src, out = folder_with_build(tmp_path)
    head, status, before = (
        git(repo, "rev-parse", "HEAD"),
        git(repo, "status", "--porcelain"),
        refs(repo),
    )
    result = tujie("publish", str(src), "--out", str(out), "--to", "git:main", cwd=repo)
    assert result.returncode == 2, result.stderr
    assert "checked out" in one_error_line(result.stderr)
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "status", "--porcelain") == status
    assert refs(repo) == before


def test_a_branch_checked_out_in_another_work_tree_is_refused(tmp_path: Path, repo: Path) -> None:
    src, out = folder_with_build(tmp_path)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "pages")
    before = refs(repo)
    result = tujie("publish", str(src), "--out", str(out), "--to", "git:pages", cwd=repo)
    assert result.returncode == 2, result.stderr
    assert "checked out" in one_error_line(result.stderr)
    assert refs(repo) == before


# --- what a branch holds is read, never followed -------------------------------------------------


@pytest.mark.parametrize(
    "stamp",
    [
        b'{"version": "ABSOLUTE"}',
        b'{"version": "../../escaped"}',
        b'{"version": "20260101T000000Z/../../escaped"}',
        b'{"version": 7}',
        b'{"version": "20260101T000000Z\\n"}',
        b"not json at all",
        b"[1, 2]",
        b"[" * 100_000,
    ],
)
def test_a_hostile_version_stamp_on_the_branch_is_refused_before_anything_moves(
    tmp_path: Path, repo: Path, stamp: bytes
) -> None:
    victim = tmp_path / "victim"
    stamp = stamp.replace(b"ABSOLUTE", str(victim).encode())
    commit_to_branch(repo, "pages", a_published_page(stamp))
    src, out = folder_with_build(tmp_path)
    before, outside = refs(repo), snapshot(tmp_path / "victim", tmp_path / "escaped")
    result = tujie("publish", str(src), "--out", str(out), "--to", "git:pages", cwd=repo)
    assert result.returncode == 1, result.stderr
    line = one_error_line(result.stderr)
    assert "page/published.json" in line and "git:pages" in line
    assert refs(repo) == before
    assert snapshot(tmp_path / "victim", tmp_path / "escaped") == outside == {}


@pytest.mark.parametrize(
    "link", ["page", "page/history", "page/history/20250101T000000Z", "index.html", ".nojekyll"]
)
def test_a_symlink_where_the_page_goes_is_refused(tmp_path: Path, repo: Path, link: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me\n", encoding="utf-8")
    entries = a_published_page(b'{"version": "20260101T000000Z"}')
    if link == "page":
        entries = {"index.html": entries["index.html"]}
    entries[link] = ("120000", str(outside).encode())
    commit_to_branch(repo, "pages", entries)
    src, out = folder_with_build(tmp_path)
    before, kept = refs(repo), snapshot(outside)
    result = tujie("publish", str(src), "--out", str(out), "--to", "git:pages", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert "symlink" in one_error_line(result.stderr)
    assert refs(repo) == before and snapshot(outside) == kept


def test_a_symlink_elsewhere_on_the_branch_stays_a_symlink_and_is_never_followed(
    tmp_path: Path, repo: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me\n", encoding="utf-8")
    entries = a_published_page(b'{"version": "20260101T000000Z"}')
    entries["other/link"] = ("120000", str(outside).encode())
    commit_to_branch(repo, "pages", entries)
    src, out = folder_with_build(tmp_path)
    kept = snapshot(outside)
    result = tujie("publish", str(src), "--out", str(out), "--to", "git:pages", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert snapshot(outside) == kept
    listing = git(repo, "ls-tree", "-r", "pages")
    assert "120000 blob" in next(ln for ln in listing.splitlines() if ln.endswith("other/link"))
    history = git(repo, "ls-tree", "-r", "--name-only", "pages").splitlines()
    assert "page/history/20260101T000000Z/index.html" in history
    assert git(repo, "show", "pages:page/history/20260101T000000Z/index.html") == "<p>old page</p>"


def test_a_file_where_the_page_folder_goes_is_refused(tmp_path: Path, repo: Path) -> None:
    commit_to_branch(repo, "pages", {"page": ("100644", b"not a folder")})
    src, out = folder_with_build(tmp_path)
    before = refs(repo)
    result = tujie("publish", str(src), "--out", str(out), "--to", "git:pages", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert "not the page's folder" in one_error_line(result.stderr)
    assert refs(repo) == before


def test_version_stamps_are_plain_version_names() -> None:
    assert published_version("pages", "p/published.json", None) == "previous"
    assert published_version("pages", "p/published.json", "{}") == "previous"
    for good in ("20260101T000000Z", "20260101T000000Z-12"):
        text = json.dumps({"version": good})
        assert published_version("pages", "p/published.json", text) == good
    for bad in ("/etc", "..", "x/y", "20260101T000000Z\n", "", "20260101T000000Z-"):
        with pytest.raises(PublishRefused, match="not a version name"):
            published_version("pages", "p/published.json", json.dumps({"version": bad}))
