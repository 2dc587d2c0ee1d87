"""Trace contract: JSON Schema, exact keys without detail, CLI errors, determinism."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from simcli import TRACE_SCHEMA, sim_cli

from sim import WorkloadError, run_workload
from sim.presets.scenarios import preset_names, run_preset
from sim.trace import dumps

SCHEMA = TRACE_SCHEMA
STEP_KEYS = {
    "index",
    "start",
    "end",
    "scheduled",
    "preempted",
    "emitted",
    "finished",
    "free_blocks",
    "running",
    "waiting",
}
REQUEST_KEYS = {
    "arrival",
    "first_token",
    "finish",
    "output_tokens",
    "token_times",
    "ttft",
    "tpot",
    "e2el",
    "preemptions",
    "prefix_hit_tokens",
}
SUMMARY_KEYS = {
    "duration",
    "output_throughput",
    "request_throughput",
    "ttft",
    "tpot",
    "itl",
    "e2el",
}


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_validates_against_schema(name: str) -> None:
    jsonschema.validate(run_preset(name, detail=True), SCHEMA)
    jsonschema.validate(run_preset(name, detail=False), SCHEMA)


def test_without_detail_exactly_the_contract() -> None:
    trace = run_preset("batching/with", detail=False)
    assert set(trace) == {"steps", "requests", "summary"}
    assert all(set(s) == STEP_KEYS for s in trace["steps"])
    assert all(set(r) == REQUEST_KEYS for r in trace["requests"].values())
    assert set(trace["summary"]) == SUMMARY_KEYS


def test_detail_fields() -> None:
    trace = run_preset("kv_alloc/without", detail=True)
    # before paging: every request reserves the whole context (20 tokens, 5 blocks of 4) up
    # front, whatever it will write, so A and B take 10 of the 12 blocks and C waits
    assert trace["engine"]["kv_alloc"] == "reserve_max_model_len"
    assert trace["scenario"]["id"] == "kv_alloc" and trace["scenario"]["variant"] == "without"
    step = trace["steps"][0]
    assert step["reserved"] == {"A": 20, "B": 20}
    assert step["blocks"] == {"A": 5, "B": 5}
    assert step["computed"] == {"A": 3, "B": 2, "C": 0}
    assert step["tokens"] == {"A": 4, "B": 3, "C": 3}
    assert step["waiting"] == ["C"]


def test_cli_run_output_validates(tmp_path: Path) -> None:
    workload = {
        "engine": {"max_num_batched_tokens": 8, "max_num_seqs": 4},
        "cost": {"kind": "unit"},
        "requests": [
            {"id": "A", "arrival": 0.0, "prompt_tokens": 10, "max_tokens": 5},
            {"id": "B", "arrival": 1.0, "prompt_ids": [5, 6, 7, 8], "max_tokens": 3},
        ],
    }
    path = tmp_path / "w.json"
    path.write_text(json.dumps(workload), encoding="utf-8")
    proc = sim_cli("run", str(path))
    assert proc.returncode == 0, proc.stderr
    trace = json.loads(proc.stdout)
    jsonschema.validate(trace, SCHEMA)
    assert trace == run_workload(workload)
    proc = sim_cli("run", "--preset", "golden-4", "--detail")
    assert proc.returncode == 0
    jsonschema.validate(json.loads(proc.stdout), SCHEMA)


BAD: list[tuple[dict[str, Any], str]] = [
    ({"requests": [{"id": "A", "prompt_tokens": 3, "colour": "red"}]}, "requests[0].colour"),
    ({"engine": {"speed": 3}, "requests": []}, "engine.speed"),
    (
        {"requests": [{"id": "A", "prompt_tokens": 3}, {"id": "B", "prompt_tokens": -1}]},
        "requests[1].prompt_tokens",
    ),
    ({"requests": [{"id": "A", "prompt_tokens": 3, "max_tokens": -2}]}, "requests[0].max_tokens"),
    (
        {
            "engine": {"max_model_len": 16},
            "requests": [
                {"id": "A", "prompt_tokens": 3},
                {"id": "B", "prompt_tokens": 3},
                {"id": "C", "prompt_tokens": 17},
            ],
        },
        "requests[2].prompt_tokens",
    ),
    (
        {"requests": [{"id": "A", "prompt_tokens": 3}, {"id": "A", "prompt_tokens": 4}]},
        "requests[1].id",
    ),
    (
        {"engine": {"max_num_batched_tokens": 4, "max_num_seqs": 8}, "requests": []},
        "engine.max_num_batched_tokens",
    ),
    ({"cost": {"kind": "magic"}}, "cost.kind"),
]


@pytest.mark.parametrize(("workload", "path"), BAD)
def test_bad_workload_raises_with_path(workload: dict[str, Any], path: str) -> None:
    with pytest.raises(WorkloadError) as err:
        run_workload(workload)
    assert err.value.path == path


@pytest.mark.parametrize(("workload", "path"), BAD[:3] + BAD[4:7])
def test_cli_bad_workload_one_line_exit_2(
    tmp_path: Path, workload: dict[str, Any], path: str
) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(workload), encoding="utf-8")
    proc = sim_cli("run", str(file))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ")


def test_cli_unknown_preset_and_bad_json(tmp_path: Path) -> None:
    proc = sim_cli("run", "--preset", "nope/with")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    file = tmp_path / "broken.json"
    file.write_text("{not json", encoding="utf-8")
    proc = sim_cli("run", str(file))
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: {file}: invalid JSON")


def test_cli_help_for_each_command() -> None:
    for cmd in ("run", "table", "presets", "sweep", "bench"):
        proc = sim_cli(cmd, "--help")
        assert proc.returncode == 0 and "usage:" in proc.stdout


def test_same_preset_twice_is_byte_identical() -> None:
    for name in ("batching/with", "prefix_cache/with", "golden-11", "metrics/without"):
        assert dumps(run_preset(name)) == dumps(run_preset(name))
    a = sim_cli("run", "--preset", "preemption/with", "--detail").stdout
    b = sim_cli("run", "--preset", "preemption/with", "--detail").stdout
    assert a == b and a


def test_generated_workload_is_deterministic() -> None:
    gen = {
        "n": 30,
        "seed": 5,
        "arrival": {"kind": "poisson", "rate": 0.5},
        "prompt": {"kind": "long_tail", "median": 20, "sigma": 1.0, "max": 200},
        "output": {"kind": "uniform", "low": 1, "high": 9},
    }
    first = dumps(
        run_workload({"generate": gen, "engine": {"max_num_batched_tokens": 64, "max_num_seqs": 8}})
    )
    assert first == dumps(
        run_workload({"generate": gen, "engine": {"max_num_batched_tokens": 64, "max_num_seqs": 8}})
    )


def test_cli_table_for_workload_file_and_presets_list(tmp_path: Path) -> None:
    file = tmp_path / "w.json"
    file.write_text(json.dumps(run_preset_workload("golden-6")), encoding="utf-8")
    proc = sim_cli("table", str(file))
    assert proc.returncode == 0
    assert "A        |   P4    d✓" in proc.stdout and "legend:" in proc.stdout
    proc = sim_cli("presets")
    assert proc.returncode == 0 and "batching/with" in proc.stdout and "golden-11" in proc.stdout


def run_preset_workload(name: str) -> dict[str, Any]:
    from sim.presets.scenarios import preset_workload

    return preset_workload(name)


def test_bench_small_reports_identical_trace() -> None:
    from sim.bench import run_bench

    report = run_bench(60)
    assert "identical trace" in report and "fast" in report and "plain" in report
    process = next(line for line in report.splitlines() if line.startswith("process "))
    assert "python -m sim run" in process and "same sha256" in process
    spec = next(line for line in report.splitlines() if line.startswith("spec "))
    assert "steps" in spec and "wall" in spec
    assert "num_speculative_tokens 3, accept [2, 0, 3, 1]" in report


def test_block_table_reuses_freed_blocks_first_in_their_old_order() -> None:
    # 6 blocks of 4 tokens: A (9-token prompt, 3 blocks) and B (1 block) in; A finishes after
    # step 2 and frees ids 0-2; C (13 tokens, 4 blocks), let in at step 3, takes them back in
    # their old order, then the never-used id 4.
    workload = {
        "engine": {"max_num_batched_tokens": 16, "max_num_seqs": 4, "block_size": 4,
                   "num_blocks": 6, "max_model_len": 64},
        "requests": [
            {"id": "A", "arrival": 0.0, "prompt_tokens": 9, "max_tokens": 2},
            {"id": "B", "arrival": 0.0, "prompt_tokens": 1, "max_tokens": 5},
            {"id": "C", "arrival": 1.5, "prompt_tokens": 13, "max_tokens": 2},
        ],
    }
    steps = run_workload(workload, detail=True)["steps"]
    assert steps[0]["block_table"] == {"A": [0, 1, 2], "B": [3]}
    assert steps[1]["finished"] == ["A"] and steps[1]["block_table"] == {"B": [3]}
    assert steps[2]["block_table"] == {"B": [3], "C": [0, 1, 2, 4]}


def test_reserving_managers_have_no_block_table() -> None:
    trace = run_preset("kv_alloc/without", detail=True)
    assert all("block_table" not in s for s in trace["steps"])
    assert "block_table" in run_preset("kv_alloc/with", detail=True)["steps"][0]
