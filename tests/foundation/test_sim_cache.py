"""The sim stage's cache (`pipeline.simulate.cache`): a second sim stage into an empty output
folder simulates nothing and writes the same traces; a changed workload is simulated again."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.build.runner import run_build
from pipeline.build.state import StageRecord, prepare
from pipeline.plan.model import load_plan
from pipeline.simulate.cache import CacheStats
from pipeline.simulate.results import needed_presets, run_sim

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def sim_stage(out: Path) -> tuple[StageRecord, Path]:
    build = prepare(EXAMPLE, out, force=True)
    run_build(build, until="sim")
    return next(r for r in build.records if r.name == "sim"), build.dir / "sim"


def entries(cache: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (cache / "sim").glob("*.json")}


def test_a_second_sim_stage_reads_every_trace_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("TUJIE_CACHE", str(cache))
    wanted = len(needed_presets(load_plan(EXAMPLE / "plan.json"))) + 1  # and the sweep
    first, first_dir = sim_stage(tmp_path / "one")
    stored = entries(cache)
    assert first.ran and len(stored) == wanted
    assert f"(0 cached, {wanted} run)" in first.note

    second, second_dir = sim_stage(tmp_path / "two")  # an empty output folder
    assert second.ran and f"({wanted} cached, 0 run)" in second.note
    assert entries(cache) == stored  # nothing simulated, nothing rewritten
    names = sorted(p.name for p in first_dir.glob("*.json"))
    assert len(names) == wanted and names == sorted(p.name for p in second_dir.glob("*.json"))
    for name in names:
        assert (first_dir / name).read_bytes() == (second_dir / name).read_bytes(), name


def test_a_changed_workload_misses_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sim.presets.scenarios import SCENARIOS

    cache = tmp_path / "cache"
    monkeypatch.setenv("TUJIE_CACHE", str(cache))
    plan = load_plan(EXAMPLE / "plan.json")
    cold = CacheStats()
    before = run_sim(plan, stats=cold)
    assert cold.hits == 0 and cold.misses == len(entries(cache)) > 1

    # One request of one preset asks for one more token: only that preset runs again.
    request = SCENARIOS["batching"].variants["with"]["requests"][0]
    monkeypatch.setitem(request, "max_tokens", request["max_tokens"] + 1)
    warm = CacheStats()
    after = run_sim(plan, stats=warm)
    assert (warm.hits, warm.misses) == (cold.misses - 1, 1)
    assert len(entries(cache)) == cold.misses + 1
    assert after.trace_json["batching/with"] != before.trace_json["batching/with"]
    assert after.trace_json["batching/without"] == before.trace_json["batching/without"]
    assert after.sweep_json == before.sweep_json
