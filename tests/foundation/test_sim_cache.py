"""The sim stage's cache (`pipeline.fields.cache`): a second sim stage into an empty output
folder simulates nothing and writes the same traces; a changed workload is simulated again."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.fields.cache import CacheStats
from pipeline.plan.model import load_plan
from pipeline.simulate import results as sim_results
from pipeline.simulate.results import needed_runs, run_sim

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def sim_stage(out: Path, cache: Path) -> Path:
    """A forced build up to the sim stage in a fresh process (no in-process cache to help)."""
    env = {**os.environ, "TUJIE_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "build", str(EXAMPLE), "--out", str(out),
         "--until", "sim", "--force"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out / "llm-inference" / "sim"


def forget_this_process() -> None:
    sim_results.forget_runs()


def entries(cache: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (cache / "sim").glob("*.json")}


def test_a_second_sim_stage_reads_every_trace_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    wanted = len(needed_runs(load_plan(EXAMPLE / "plan.json"))) + 1  # and the sweep
    first_dir = sim_stage(tmp_path / "one", cache)
    stored = entries(cache)
    assert len(stored) >= wanted  # the validator may ask for a few runs more (knob checks)

    second_dir = sim_stage(tmp_path / "two", cache)  # an empty output folder
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
    forget_this_process()
    cold = CacheStats()
    before = run_sim(plan, stats=cold)
    assert cold.hits == 0 and cold.misses == len(entries(cache)) > 1

    # One request of one preset asks for one more token: only that preset runs again.
    request = SCENARIOS["batching"].variants["with"]["requests"][0]
    monkeypatch.setitem(request, "max_tokens", request["max_tokens"] + 1)
    forget_this_process()
    warm = CacheStats()
    after = run_sim(plan, stats=warm)
    assert (warm.hits, warm.misses) == (cold.misses - 1, 1)
    assert len(entries(cache)) == cold.misses + 1
    assert after.trace_json["batching/with"] != before.trace_json["batching/with"]
    assert after.trace_json["batching/without"] == before.trace_json["batching/without"]
    assert after.sweep_json == before.sweep_json


@pytest.fixture(autouse=True)
def _fresh_process_cache() -> Iterator[None]:
    forget_this_process()
    yield
    forget_this_process()  # the monkeypatched preset's trace must not outlive the test
