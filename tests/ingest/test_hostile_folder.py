"""Ingest of a hostile folder: symlinks out of it, symlink loops, special files and file names
that are not UTF-8 are skipped or escaped with a reason, never read from outside, never a
traceback (issue 10, cases 3 and 9)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.artifacts.sources import Corpus
from pipeline.build.state import prepare, source_tree_hash
from pipeline.cli import main
from pipeline.ingest.folder import ingest_folder

SECRET = "root:x:0:0:secret-line-outside-the-folder"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the source folder, holding what must never be ingested."""
    out = tmp_path / "outside"
    out.mkdir()
    (out / "passwd").write_text(SECRET + "\n", encoding="utf-8")
    (out / "notes.md").write_text(f"# Outside\n\n{SECRET}\n", encoding="utf-8")
    return out


@pytest.fixture
def src(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "src"
    (root / "sub").mkdir(parents=True)
    (root / "real.md").write_text("# Real\n\nAn article inside the folder.\n", encoding="utf-8")
    (root / "sub" / "inner.md").write_text("# Inner\n\nAnother article.\n", encoding="utf-8")
    (root / "passwd.md").symlink_to(outside / "passwd")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "real.md")  # inside: fine
    (root / "relative.md").symlink_to(Path("sub") / "inner.md")  # inside, relative: fine
    (root / "up.md").symlink_to(Path("..") / "outside" / "notes.md")  # relative, outside
    (root / "loop-a.md").symlink_to(root / "loop-b.md")
    (root / "loop-b.md").symlink_to(root / "loop-a.md")
    (root / "sub" / "cycle").symlink_to(root, target_is_directory=True)  # a folder loop
    (root / "dangling.md").symlink_to(root / "missing.md")
    os.mkfifo(root / "pipe.md")  # reading it would block forever
    return root


def _reasons(corpus: Corpus) -> dict[str, str]:
    return {s.path: s.reason for s in corpus.skipped}


def test_symlinks_out_of_the_folder_are_skipped_not_read(src: Path) -> None:
    corpus = ingest_folder(src)
    assert SECRET not in corpus.model_dump_json()
    assert sorted(s.path for s in corpus.sources) == [
        "alias.md",
        "real.md",
        "relative.md",
        "sub/inner.md",
    ]
    reasons = _reasons(corpus)
    for name in ("passwd.md", "up.md", "escape"):
        assert reasons[name].startswith("symlink to outside the folder"), reasons[name]
    assert reasons["loop-a.md"].startswith("symlink loop")
    assert reasons["loop-b.md"].startswith("symlink loop")
    assert reasons["dangling.md"].startswith("broken symlink")
    assert reasons["sub/cycle"].startswith("symlinked folder not followed")
    assert reasons["pipe.md"].startswith("not a regular file")


def test_the_build_hash_does_not_read_outside_and_sees_new_escapes(
    src: Path, outside: Path
) -> None:
    before = source_tree_hash(src)
    (outside / "passwd").write_text("changed\n", encoding="utf-8")
    assert source_tree_hash(src) == before  # the target's content is not part of the inputs
    (src / "shadow.md").symlink_to(outside / "notes.md")
    assert source_tree_hash(src) != before  # a new skip is a new sources.json


def test_source_folder_reached_through_a_symlink(tmp_path: Path, src: Path) -> None:
    link = tmp_path / "link-to-src"
    link.symlink_to(src, target_is_directory=True)
    corpus = ingest_folder(link)
    assert "real.md" in [s.path for s in corpus.sources]
    assert _reasons(corpus)["passwd.md"].startswith("symlink to outside")


def test_only_escapes_is_a_clear_error(tmp_path: Path, outside: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "only"
    root.mkdir()
    (root / "passwd.md").symlink_to(outside / "passwd")
    code = main(["ingest", str(root), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "no readable article" in err[0] and "symlink to outside the folder" in err[0]


def test_tujie_ingest_prints_the_symlink_skip(src: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["ingest", str(src), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "skipped passwd.md: symlink to outside the folder" in out
    assert SECRET not in (tmp_path / "out" / "src" / "sources.json").read_text(encoding="utf-8")


def test_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "names"
    root.mkdir()
    (root / "ok.md").write_text("# Ok\n\nText.\n", encoding="utf-8")
    with open(os.path.join(os.fsencode(root), b"bad\xff.md"), "wb") as fh:
        fh.write(b"# Bad name\n\nThe body is fine.\n")
    with open(os.path.join(os.fsencode(root), b"esc\x1b[2J.md"), "wb") as fh:
        fh.write(b"# Escape\n\nA name that would clear the screen.\n")
    source_tree_hash(root)  # no UnicodeEncodeError
    corpus = ingest_folder(root)
    paths = sorted(s.path for s in corpus.sources)
    assert paths == ["bad\\xff.md", "esc\\x1b[2J.md", "ok.md"]
    by_path = {s.path: s for s in corpus.sources}
    assert by_path["bad\\xff.md"].text.endswith("The body is fine.")
    Corpus.model_validate_json(corpus.model_dump_json())  # stores as valid UTF-8 JSON
    build = prepare(root, tmp_path / "out")
    assert build.dir.name == "names"
