"""`tujie build` on bad input: one line naming the file (and JSON path), exit 2, and the
artifacts of an earlier good build left untouched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def tujie(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=full_env,
        timeout=300,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    dst = tmp_path / "notes"
    shutil.copytree(EXAMPLE, dst)
    return dst


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_empty_folder(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    r = tujie("build", str(empty), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 2
    assert str(empty) in one_error_line(r)


def test_folder_without_a_readable_article(tmp_path: Path):
    src = tmp_path / "junk"
    src.mkdir()
    (src / "notes.md").write_bytes(bytes(range(256)) * 64)
    r = tujie("build", str(src), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 2
    assert "junk" in one_error_line(r)


def test_missing_plan_without_api_key_is_the_missing_key(folder: Path, tmp_path: Path):
    """README: exit 3 for a missing API key, as `tujie plan` gives (was 2 from `tujie build`)."""
    (folder / "plan.json").unlink()
    r = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 3
    line = one_error_line(r)
    assert "plan.json" in line and "ANTHROPIC_API_KEY" in line


def test_malformed_plan_names_file_and_position(folder: Path, tmp_path: Path):
    (folder / "plan.json").write_text('{"title": "x",', encoding="utf-8")
    r = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 2
    line = one_error_line(r)
    assert "plan.json" in line and "not valid JSON at line 1" in line


def test_plan_breaking_rules_names_json_path(folder: Path, tmp_path: Path):
    data = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    data["concepts"][1]["trouble"]["caption"] = "这是一句明显超过了十五个汉字的说明文字"
    (folder / "plan.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    r = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 2
    assert "concepts[1].trouble.caption" in one_error_line(r)


def test_unknown_page_toml_key(folder: Path, tmp_path: Path):
    with (folder / "page.toml").open("a", encoding="utf-8") as f:
        f.write('\ncolour = "red"\n')
    r = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 2
    line = one_error_line(r)
    assert "page.toml" in line and "colour" in line and "unknown key" in line


def test_unwritable_output_folder(folder: Path, tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    r = tujie("build", str(folder), "--out", str(blocker), "--until", "plan")
    assert r.returncode == 2
    assert "a-file" in one_error_line(r)


def test_bad_plan_leaves_earlier_artifacts_untouched(folder: Path, tmp_path: Path):
    out = tmp_path / "out"
    good = tujie("build", str(folder), "--out", str(out), "--until", "plan")
    assert good.returncode == 0, good.stderr
    build_dir = out / "llm-inference"  # page.toml's publish.name
    artifacts = {p: p.read_bytes() for p in build_dir.glob("*.json")}
    assert build_dir / "plan.json" in artifacts
    (folder / "plan.json").write_text("[]", encoding="utf-8")
    bad = tujie("build", str(folder), "--out", str(out), "--until", "plan")
    assert bad.returncode == 2
    for path, data in artifacts.items():
        if path.name != "build.json":
            assert path.read_bytes() == data, path
    assert not list(build_dir.glob(".*tmp*"))


def test_missing_browser_exits_3_with_the_install_command(folder: Path, tmp_path: Path):
    r = tujie(
        "check", str(folder), "--out", str(tmp_path / "out"), env={"CHROME_PATH": "/nonexistent"}
    )
    assert r.returncode == 3
    line = one_error_line(r)
    assert "CHROME_PATH=/nonexistent" in line and "apt-get install chromium" in line
