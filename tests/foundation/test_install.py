"""tujie installs like any Python tool: the wheel carries the templates and prompts as package data
(mapped from the repository's top-level folders, no copies in git) and every package on disk."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _packages_on_disk() -> set[str]:
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for top in ("pipeline", "sim")
        for p in (REPO / top).rglob("__init__.py")
    }
    return found | {"pipeline.templates", "pipeline.prompts"}


def test_pyproject_lists_every_package() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(config["tool"]["setuptools"]["packages"]) == _packages_on_disk()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (found,) = out.glob("tujie-*.whl")
    return found


def test_wheel_carries_templates_prompts_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, package in (("templates", "pipeline/templates"), ("prompts", "pipeline/prompts")):
        for f in (REPO / folder).rglob("*"):
            if f.is_file():
                rel = f.relative_to(REPO / folder).as_posix()
                assert f"{package}/{rel}" in names, f"{rel} missing from the wheel"
    assert "pipeline/plan/pricing.json" in names
    assert any(n.startswith("sim/data/") and n.endswith(".json") for n in names)
    assert not any(n.startswith(("templates/", "prompts/", "tests/", "examples/")) for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "tujie = pipeline.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
