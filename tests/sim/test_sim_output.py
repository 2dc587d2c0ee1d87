"""`python -m sim run` output: compact by default, `--indent` for humans (same data); the fast
path chosen automatically gives the plain loop's trace on every preset it covers and on
seeded generated workloads where its O(1) decode-set steps do most of the work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from simcli import sim_cli

from sim import run_workload
from sim.fast import FastVllmEngine, fast_applies
from sim.presets.scenarios import preset_names, preset_workload
from sim.trace import build_trace, dumps, encode, trace_hash
from sim.workload import parse_workload


def test_compact_and_indented_outputs_decode_to_the_same_json() -> None:
    for preset in ("batching/with", "golden-4", "preemption/with"):
        compact = sim_cli("run", "--preset", preset)
        indented = sim_cli("run", "--preset", preset, "--indent")
        assert compact.returncode == indented.returncode == 0, compact.stderr
        assert compact.stdout.count("\n") == 1 and compact.stdout.endswith("}\n")
        assert indented.stdout.count("\n") > 10 and '\n  "steps": [' in indented.stdout
        assert json.loads(compact.stdout) == json.loads(indented.stdout)
        assert len(compact.stdout) < len(indented.stdout)


def test_run_with_detail_and_indent_is_the_library_trace() -> None:
    proc = sim_cli("run", "--preset", "golden-6", "--detail", "--indent")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == run_workload(preset_workload("golden-6"), detail=True)


def test_default_run_equals_plain_loop_on_the_command_line(tmp_path: Path) -> None:
    workload = {
        "engine": {"max_num_batched_tokens": 64, "max_num_seqs": 4, "num_blocks": 12},
        "cost": {"kind": "linear"},
        "generate": {
            "n": 25,
            "seed": 3,
            "arrival": {"kind": "poisson", "rate": 2.0},
            "prompt": {"kind": "uniform", "low": 5, "high": 60},
            "output": {"kind": "uniform", "low": 1, "high": 30},
        },
    }
    assert fast_applies(parse_workload(workload))
    path = tmp_path / "w.json"
    path.write_text(json.dumps(workload), encoding="utf-8")
    fast, plain = sim_cli("run", str(path)), sim_cli("run", str(path), "--plain")
    assert fast.returncode == plain.returncode == 0, fast.stderr
    assert fast.stdout == plain.stdout
    old_flag = sim_cli("run", str(path), "--fast")  # old scripts still run
    assert old_flag.stdout == fast.stdout
    trace = json.loads(fast.stdout)
    assert any(step["preempted"] for step in trace["steps"])  # the scalar fallback ran too


def test_every_preset_the_fast_path_covers_gives_the_plain_trace() -> None:
    covered = 0
    for name in preset_names():
        workload = preset_workload(name)
        if not fast_applies(parse_workload(workload)):
            continue
        covered += 1
        fast = run_workload(workload)
        assert trace_hash(fast) == trace_hash(run_workload(workload, fast=False)), name
    assert covered >= 10


def test_encoder_agrees_with_the_stdlib() -> None:
    trace = run_workload(preset_workload("golden-2"))
    trace["extra"] = {"tiny": 1e-05, "huge": 1e16, "text": "ü → 中", "nested": [[0.1 + 0.2]]}
    for indent in (False, True):
        assert json.loads(encode(trace, indent=indent)) == json.loads(json.dumps(trace))
    assert dumps(trace) == encode(trace).decode("utf-8")
    assert "中" in dumps(trace)  # UTF-8 as is, not \u escapes


def _generated(
    seed: int, block_size: int, num_blocks: int, budget: int, rate: float
) -> dict[str, Any]:
    arrival = {"kind": "poisson", "rate": rate} if rate else {"kind": "all_at_once"}
    return {
        "engine": {
            "max_num_batched_tokens": budget,
            "max_num_seqs": 16,
            "block_size": block_size,
            "num_blocks": num_blocks,
            "max_model_len": 1024,
            "long_prefill_token_threshold": 32 if seed % 2 else 0,
        },
        "cost": {"kind": "linear" if seed % 3 else "unit"},
        "generate": {
            "n": 80,
            "seed": seed,
            "arrival": arrival,
            "prompt": {"kind": "uniform", "low": 1, "high": 400},
            "output": {"kind": "uniform", "low": 1, "high": 200},
        },
    }


@pytest.mark.parametrize(
    ("seed", "block_size", "num_blocks", "budget", "rate"),
    [
        (0, 16, 2000, 2048, 0.0),  # the bench's shape: long decode rhythm, admissions
        (1, 4, 300, 256, 0.0),  # blocks run short: preemptions between decode-set steps
        (2, 1, 900, 64, 2.0),  # arrivals over time, small budget: chunked prefills
        (3, 16, 60, 512, 8.0),
        (4, 4, 500, 128, 0.5),
    ],
)
def test_decode_set_steps_give_the_plain_loops_trace(
    seed: int, block_size: int, num_blocks: int, budget: int, rate: float
) -> None:
    data = _generated(seed, block_size, num_blocks, budget, rate)
    workload = parse_workload(data)
    engine = FastVllmEngine(workload)
    fast = build_trace(engine.run(), workload)
    assert engine.decode.clock > len(fast["steps"]) // 2  # most steps took the O(1) path
    assert trace_hash(fast) == trace_hash(run_workload(data, fast=False))
    assert fast == run_workload(data)
