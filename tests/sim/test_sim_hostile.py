"""Hostile workloads (issue 10, cases 9, 10 and 12): one error line and exit 2 for bad or
unbounded input, never a traceback; a workload that cannot be scheduled says "stalled" (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from simcli import sim_cli

from sim import SimError, run_workload
from sim.api import run_outcome
from sim.errors import LimitExceeded, WorkloadError
from sim.limits import DEFAULT_MAX_STEPS, MAX_REQUESTS, MAX_TOKENS_PER_REQUEST

FIXED_5 = {"kind": "fixed", "value": 5}


def _one_error_line(proc: Any, *expected: str) -> str:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for text in expected:
        assert text in lines[0]
    return str(lines[0])


def _write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "workload.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_nested_100k_deep_is_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "[" * 100_000 + "]" * 100_000)
    _one_error_line(sim_cli("run", str(path)), str(path), "nested too deeply")


def test_5000_digit_integer_is_one_line(tmp_path: Path) -> None:
    big = "9" * 5000
    path = _write(tmp_path, '{"requests": [{"prompt_tokens": ' + big + "}]}")
    _one_error_line(sim_cli("run", str(path)), str(path), "too long")


def test_huge_python_integer_in_a_number_field_is_a_workload_error() -> None:
    workload = {"requests": [{"id": "A", "prompt_tokens": 3, "arrival": 10**400}]}
    with pytest.raises(WorkloadError) as err:
        run_workload(workload)
    assert err.value.path == "requests[0].arrival"


def test_non_utf8_file_is_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, b'{"requests": [{"id": "\xff\xfe", "prompt_tokens": 3}]}')
    _one_error_line(sim_cli("run", str(path)), str(path), "not UTF-8")


def test_uniform_low_above_high_is_one_line(tmp_path: Path) -> None:
    gen = {"n": 3, "prompt": {"kind": "uniform", "low": 9, "high": 5}, "output": FIXED_5}
    path = _write(tmp_path, json.dumps({"generate": gen}))
    _one_error_line(sim_cli("run", str(path)), "generate.prompt.low", "greater than high")


def test_a_billion_requests_refused_before_generating(tmp_path: Path) -> None:
    # Generating them would take minutes and gigabytes: this test finishing proves the order.
    gen = {"n": 10**9, "prompt": FIXED_5, "output": FIXED_5}
    path = _write(tmp_path, json.dumps({"generate": gen}))
    _one_error_line(sim_cli("run", str(path)), "generate.n", "MAX_REQUESTS", "1,000,000")


def test_request_list_longer_than_the_bound() -> None:
    with pytest.raises(LimitExceeded) as err:
        run_workload({"requests": [{"prompt_tokens": 1}] * (MAX_REQUESTS + 1)})
    assert err.value.path == "requests" and "MAX_REQUESTS" in err.value.problem


@pytest.mark.parametrize(
    ("workload", "path"),
    [
        (
            {"requests": [{"prompt_tokens": 5, "max_tokens": MAX_TOKENS_PER_REQUEST}]},
            "requests[0]",
        ),
        (
            {"generate": {"n": 2, "prompt": FIXED_5, "output": {"kind": "fixed", "value": 10**8}}},
            "generate.output.value",
        ),
        (
            {"generate": {"n": 2, "prompt": FIXED_5, "output": FIXED_5, "shared_prefix": 10**9}},
            "generate.shared_prefix",
        ),
        ({"engine": {"num_blocks": 10**9}, "requests": []}, "engine.num_blocks"),
    ],
)
def test_token_and_block_bounds(workload: dict[str, Any], path: str) -> None:
    with pytest.raises(LimitExceeded) as err:
        run_workload(workload)
    assert err.value.path == path and "exceed the bound" in err.value.problem


def test_step_bound_refused_before_running(tmp_path: Path) -> None:
    # 5,000,000 output tokens need 5,000,000 steps: refused from the input alone.
    engine = {"max_model_len": 6_000_000, "max_num_batched_tokens": 256}
    workload = {"engine": engine, "requests": [{"prompt_tokens": 5, "max_tokens": 5_000_000}]}
    path = _write(tmp_path, json.dumps(workload))
    line = _one_error_line(sim_cli("run", str(path)), "1,000,000 steps", "--max-steps")
    assert "needs at least 5,000,000 steps" in line
    assert DEFAULT_MAX_STEPS == 1_000_000


def test_max_steps_option_stops_a_run_that_gets_there(tmp_path: Path) -> None:
    workload = {"requests": [{"id": "A", "prompt_tokens": 4, "max_tokens": 10}]}
    path = _write(tmp_path, json.dumps(workload))
    _one_error_line(sim_cli("run", str(path), "--max-steps", "5"), "needs at least 10 steps")
    # The lower bound can not see preemption: this run needs more steps than it predicts.
    thrash = {
        "engine": {"num_blocks": 3, "max_num_batched_tokens": 64, "max_num_seqs": 4},
        "requests": [{"id": r, "prompt_tokens": 16, "max_tokens": 4} for r in "ABC"],
    }
    with pytest.raises(LimitExceeded, match="more than 5 steps"):
        run_workload(thrash, max_steps=5)
    assert len(run_workload(thrash, max_steps=100)["steps"]) > 5
    assert issubclass(LimitExceeded, SimError)


def test_stalled_workload_says_why_and_exits_1(tmp_path: Path) -> None:
    workload = {
        "engine": {"num_blocks": 2, "max_num_batched_tokens": 64, "max_num_seqs": 4},
        "requests": [{"id": "BIG", "prompt_tokens": 50, "max_tokens": 3}],
    }
    path = _write(tmp_path, json.dumps(workload))
    for command in ("run", "table"):
        proc = sim_cli(command, str(path))
        assert proc.returncode == 1
        assert proc.stderr.splitlines() == [
            "stalled before step 1: request BIG needs 4 KV blocks for its whole sequence but "
            "the pool has only 2 (raise num_blocks or shorten it)"
        ]
        assert proc.stdout  # the trace / table is still printed
    outcome = run_outcome(workload, fast=True)
    assert outcome.trace["stalled"] is True and outcome.stall is not None


def test_stalled_preset_names_preemption_off() -> None:
    proc = sim_cli("run", "--preset", "preemption/without")
    assert proc.returncode == 1
    assert "preemption is off" in proc.stderr and proc.stderr.startswith("stalled before step ")
    assert json.loads(proc.stdout)["stalled"] is True


def test_step_bound_counts_speculative_tokens_per_step() -> None:
    # 40 output tokens need 40 plain steps but only 10 verify steps at k = 3 (all accepted):
    # the up-front bound must not refuse the speculative run at --max-steps 20.
    request = [{"id": "A", "prompt_tokens": 4, "max_tokens": 40}]
    with pytest.raises(LimitExceeded, match="needs at least 40 steps"):
        run_workload({"requests": request}, max_steps=20)
    trace = run_workload(
        {"engine": {"num_speculative_tokens": 3}, "requests": request}, max_steps=20
    )
    assert trace["requests"]["A"]["output_tokens"] == 40 and len(trace["steps"]) <= 20


def test_cluster_honours_a_raised_step_bound() -> None:
    pool = {"max_num_batched_tokens": 16, "max_num_seqs": 4}
    engine = {"policy": "disagg", "prefill": pool, "decode": pool, "transfer": {"steps": 1}}
    request = [{"id": "A", "prompt_tokens": 4, "max_tokens": 12}]
    with pytest.raises(LimitExceeded, match="more than 5 steps"):
        run_workload({"engine": engine, "requests": request}, max_steps=5)
    assert len(run_workload({"engine": engine, "requests": request}, max_steps=13)["steps"]) == 12
