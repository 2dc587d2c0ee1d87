"""Every file tujie reads from a source folder goes through `pipeline.reader` (issue 22,
deliverable 3): page.toml, plan.json, reading-list.md and the articles are read only as regular
files inside the folder, within their size limit, never more than the limit + 1 bytes. A FIFO
must not hang the build and a link to /dev/zero must not be read until memory runs out, so the
CLI cases run in a subprocess with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.config import load_config
from pipeline.errors import ConfigError, PlanError
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import load_plan
from pipeline.reader import (
    MAX_CONFIG_BYTES,
    MAX_PLAN_BYTES,
    MAX_READING_LIST_BYTES,
    FileKind,
    FileRefused,
    read_file,
    read_text,
)

REPO = Path(__file__).resolve().parents[2]
ARTICLE = "# An article\n\nA paragraph inside the folder.\n"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    root.mkdir()
    (root / "article.md").write_text(ARTICLE, encoding="utf-8")
    return root


def tujie(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUJIE_"))}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**env, "TUJIE_OUTPUT": str(cwd / "out")},
        timeout=120,  # a FIFO read would block for ever: the timeout is the failure
    )


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("name", "command", "reason"),
    [
        ("page.toml", "ingest", "named pipe (FIFO), not a regular file"),
        ("plan.json", "validate", "named pipe (FIFO), not a regular file"),
        ("plan.json", "build", "named pipe (FIFO), not a regular file"),
    ],
)
def test_a_fifo_is_refused_not_waited_on(
    src: Path, tmp_path: Path, name: str, command: str, reason: str
) -> None:
    os.mkfifo(src / name)
    args = [command, str(src)] + (["--until", "plan"] if command == "build" else [])
    result = tujie(*args, cwd=tmp_path)
    assert result.returncode == 2
    line = _one_error_line(result)
    assert str(src / name) in line and reason in line


@pytest.mark.parametrize(
    ("name", "command"),
    [("page.toml", "ingest"), ("plan.json", "validate"), ("plan.json", "build")],
)
def test_a_link_to_dev_zero_is_refused_with_its_target(
    src: Path, tmp_path: Path, name: str, command: str
) -> None:
    (src / name).symlink_to("/dev/zero")
    args = [command, str(src)] + (["--until", "plan"] if command == "build" else [])
    result = tujie(*args, cwd=tmp_path)
    assert result.returncode == 2
    line = _one_error_line(result)
    assert str(src / name) in line and "symlink to outside the folder (→ /dev/zero)" in line


def test_reading_list_and_articles_that_are_links_out_or_fifos_are_skipped(
    src: Path, tmp_path: Path
) -> None:
    (src / "reading-list.md").symlink_to("/dev/zero")
    (src / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(src / "pipe.md")
    corpus = ingest_folder(src)
    reasons = {s.path: s.reason for s in corpus.skipped}
    assert "symlink to outside the folder (→ /dev/zero)" in reasons["reading-list.md"]
    assert "symlink to outside the folder (→ /dev/zero)" in reasons["zero.md"]
    assert "not a regular file" in reasons["pipe.md"]
    assert [s.path for s in corpus.sources] == ["article.md"]


def test_each_kind_has_its_size_limit(src: Path) -> None:
    (src / "page.toml").write_text("title = 'x'\n" + "#" * MAX_CONFIG_BYTES, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"page.toml: too large for a page.toml .*limit 64 KB"):
        load_config(src)
    (src / "plan.json").write_bytes(b" " * (MAX_PLAN_BYTES + 1))
    with pytest.raises(PlanError, match=r"too large for a plan.json .*limit 2 MB"):
        load_plan(src / "plan.json")
    (src / "reading-list.md").write_bytes(b"- <https://example.org/a>\n" * 50_000)
    assert (src / "reading-list.md").stat().st_size > MAX_READING_LIST_BYTES
    corpus = ingest_folder(src)
    [skip] = [s for s in corpus.skipped if s.path == "reading-list.md"]
    assert "too large for a reading list" in skip.reason and "limit 1 MB" in skip.reason
    assert corpus.reading_list == []


def test_a_file_whose_size_says_nothing_is_read_only_to_the_limit_plus_one() -> None:
    """/proc files report a size of 0 and hold more: the read itself must stop."""
    proc = Path("/proc/self")
    if not (proc / "status").exists():
        pytest.skip("no /proc")
    assert (proc / "status").stat().st_size == 0
    with pytest.raises(FileRefused, match="more bytes than its size said"):
        read_file(proc / "status", proc, FileKind("status", 16))


def test_a_folder_on_the_way_out_is_refused(src: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "plan.json").write_text("{}", encoding="utf-8")
    (src / "sub").symlink_to(outside, target_is_directory=True)
    with pytest.raises(FileRefused, match="lies outside the folder"):
        read_file(src / "sub" / "plan.json", src, FileKind("plan.json", 100))


def test_utf8_kinds_refuse_other_bytes_with_the_offset(src: Path) -> None:
    (src / "page.toml").write_bytes("title = '图解'\n".encode("gb18030"))
    with pytest.raises(ConfigError, match=r"not UTF-8 \(byte 0xbd at offset 11\)"):
        load_config(src)
    (src / "page.toml").write_bytes(b"\xef\xbb\xbftitle = 'ok'\n")  # a BOM is fine
    assert load_config(src).title == "ok"


def test_a_missing_file_is_missing_and_a_broken_link_is_said(src: Path) -> None:
    with pytest.raises(FileRefused) as missing:
        read_text(src / "page.toml", src, FileKind("page.toml", 100, utf8=True))
    assert missing.value.missing
    assert load_config(src).lang == "zh"  # absent: the defaults
    (src / "page.toml").symlink_to(src / "gone.toml")
    with pytest.raises(ConfigError, match="broken symlink"):
        load_config(src)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=300), limit=st.integers(min_value=0, max_value=300))
def test_read_file_returns_the_bytes_exactly_when_within_the_limit(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, limit: int
) -> None:
    folder = tmp_path_factory.mktemp("read")
    (folder / "f").write_bytes(data)
    kind = FileKind("file", limit)
    if len(data) <= limit:
        assert read_file(folder / "f", folder, kind) == data
    else:
        with pytest.raises(FileRefused, match="too large"):
            read_file(folder / "f", folder, kind)
