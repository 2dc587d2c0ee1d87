"""The same inputs give the same bytes: two builds of the example produce identical artifacts,
and a second build in the same place re-runs no stage."""

from __future__ import annotations

from pathlib import Path

from pipeline.build.runner import run_build
from pipeline.build.state import prepare

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def build_to(out: Path) -> tuple[Path, list[str]]:
    build = prepare(EXAMPLE, out)
    run_build(build, until="render")
    return build.dir, [r.name for r in build.records if r.ran]


def test_two_builds_are_byte_identical_and_the_second_is_skipped(tmp_path: Path) -> None:
    first_dir, first_ran = build_to(tmp_path / "one")
    second_dir, _ = build_to(tmp_path / "two")
    assert first_ran == ["ingest", "plan", "links", "sim", "render"]
    for name in ("index.html", "plan.json", "sources.json"):
        assert (first_dir / name).read_bytes() == (second_dir / name).read_bytes(), name
    sims = sorted(p.name for p in (first_dir / "sim").glob("*.json"))
    assert sims and sims == sorted(p.name for p in (second_dir / "sim").glob("*.json"))
    for name in sims:
        assert (first_dir / "sim" / name).read_bytes() == (second_dir / "sim" / name).read_bytes()
    _, again_ran = build_to(tmp_path / "one")
    assert again_ran == []
