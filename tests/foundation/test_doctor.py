"""`tujie doctor`: each thing `tujie build` needs, ok or missing with its fix; exit 3 when
something needed is missing; the API key's value is never printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_build_inputs import tujie

from pipeline.errors import EXIT_ENVIRONMENT, EXIT_OK

# A ready machine (exit 0) has the system Chromium and a CJK font.
pytestmark = pytest.mark.browser
SENTINEL = "sk-ant-DOCTOR-SENTINEL-5f3a9c"


def _lines(stdout: str) -> dict[str, str]:
    """Finding name → its printed line (columns: the mark in 8 characters, the name in 14)."""
    return {line[9:23].strip(): line for line in stdout.splitlines()}


def test_a_wrong_chrome_path_exits_3_naming_the_fix(tmp_path: Path) -> None:
    r = tujie("doctor", "--out", str(tmp_path / "out"), env={"CHROME_PATH": "/nonexistent"})
    assert r.returncode == EXIT_ENVIRONMENT, r.stdout + r.stderr
    line = _lines(r.stdout)["chromium"]
    assert line.startswith("missing")
    assert "CHROME_PATH=/nonexistent is not an executable" in line
    assert "fix or unset CHROME_PATH" in line and "apt-get install chromium" in line
    errors = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert errors == ["error: `tujie build` needs what is missing here: chromium (fixes above)"]


def test_a_ready_machine_exits_0_and_never_prints_the_key(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": SENTINEL, "TUJIE_MODEL": "claude-test-model"}
    r = tujie("doctor", "--out", str(tmp_path / "out"), env=env)
    assert r.returncode == EXIT_OK, r.stdout + r.stderr
    lines = _lines(r.stdout)
    assert set(lines) >= {"chromium", "CJK font", "Ma Shan Zheng", "Patrick Hand", "axe-core"}
    assert set(lines) >= {"API key", "model", "cache", "output", "install"}
    assert all(line.startswith("ok") for line in lines.values()), r.stdout
    assert "ANTHROPIC_API_KEY is set" in lines["API key"]
    assert "claude-test-model" in lines["model"]
    assert str((tmp_path / "out").resolve()) in lines["output"]
    assert SENTINEL not in r.stdout + r.stderr
    js = tujie("doctor", "--out", str(tmp_path / "out"), "--json", env=env)
    assert js.returncode == EXIT_OK
    assert SENTINEL not in js.stdout + js.stderr
    report = json.loads(js.stdout)
    assert report["ok"] is True
    assert {f["name"] for f in report["findings"]} == set(lines)


def test_no_key_is_not_set_but_not_missing(tmp_path: Path) -> None:
    """A folder that ships plan.json builds without a key: doctor says how to set it, exit 0."""
    r = tujie("doctor", "--out", str(tmp_path / "out"))
    assert r.returncode == EXIT_OK, r.stdout + r.stderr
    line = _lines(r.stdout)["API key"]
    assert line.startswith("not set") and "export ANTHROPIC_API_KEY=" in line


def test_packages_not_cached_yet_will_be_fetched_and_nothing_is_downloaded(tmp_path: Path) -> None:
    empty = tmp_path / "npm"
    empty.mkdir()
    r = tujie("doctor", "--out", str(tmp_path / "out"), env={"TUJIE_NPM_DIR": str(empty)})
    assert r.returncode == EXIT_OK, r.stdout + r.stderr
    lines = _lines(r.stdout)
    for name in ("Ma Shan Zheng", "Patrick Hand", "axe-core"):
        assert lines[name].startswith("ok")
        assert "will be fetched from the npm registry on first use" in lines[name]
        assert f"npm install --prefix {empty}" in lines[name]
    assert list(empty.iterdir()) == []


def test_folders_that_cannot_be_written_are_missing(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    env = {"TUJIE_CACHE": str(blocker / "cache")}
    r = tujie("doctor", "--out", str(blocker / "out"), "--json", env=env)
    assert r.returncode == EXIT_ENVIRONMENT
    found = {f["name"]: f for f in json.loads(r.stdout)["findings"]}
    assert found["cache"]["ok"] is False and "TUJIE_CACHE" in found["cache"]["fix"]
    assert found["output"]["ok"] is False and "--out" in found["output"]["fix"]
    assert "cache, output" in r.stderr
