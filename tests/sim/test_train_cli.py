"""`python -m sim train` as a user runs it: one JSON object on stdout that the schema accepts;
bad input and passed bounds are one line on stderr, exit 2 and nothing on stdout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from simcli import REPO, sim_cli

from sim.training.presets import PRESETS, train_preset
from sim.training.run import run_training

SCHEMA = json.loads((REPO / "sim" / "training" / "train.schema.json").read_text(encoding="utf-8"))


def small() -> dict[str, Any]:
    return train_preset("pipeline-1f1b")


def test_preset_prints_one_json_object_the_schema_accepts() -> None:
    proc = sim_cli("train", "--preset", "pipeline-1f1b")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    jsonschema.validate(out, SCHEMA)
    assert out["scenario"]["id"] == "pipeline-1f1b"
    assert out["pipeline_order"]["3"][:2] == [["F", 3, 0], ["B", 3, 0]]
    assert out["bubble_fraction"] == pytest.approx(3 / 11)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_runs_and_validates(name: str) -> None:
    out = run_training(train_preset(name))
    jsonschema.validate(out, SCHEMA)
    assert out["step"]["step_time"] > 0
    if out["step"]["time_unit"] == "s":
        assert 0 < out["step"]["mfu"] <= train_preset(name)["cost"]["efficiency"]


def test_workload_file_and_indent(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps(small()), encoding="utf-8")
    proc = sim_cli("train", str(path), "--indent")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("{\n  ")
    assert json.loads(proc.stdout) == run_training(small())


def test_list_names_every_preset() -> None:
    proc = sim_cli("train", "--list")
    assert proc.returncode == 0
    assert [line.split("\t")[0] for line in proc.stdout.splitlines()] == list(PRESETS)


def _refused(tmp_path: Path, data: Any, *needles: str) -> None:
    path = tmp_path / "w.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    proc = sim_cli("train", str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def _with(path: str, value: Any) -> dict[str, Any]:
    w = small()
    *parents, last = path.split(".")
    node = w
    for key in parents:
        node = node[key]
    node[last] = value
    return w


@pytest.mark.parametrize(
    ("path", "value", "needles"),
    [
        ("colour", "red", ("colour", "unknown field")),
        ("parallel.ep", 2, ("parallel.ep", "unknown field")),
        ("batch.micro_batch", 3, ("batch.global_batch", "multiple of dp × micro_batch = 3")),
        ("parallel.pp", 2, ("parallel", "dp × tp × pp = 2", "4 GPUs")),
        ("parallel.schedule", "zb", ("parallel.schedule", "gpipe")),
        ("parallel.zero", 4, ("parallel.zero",)),
        ("model", "gpt-5", ("model", "llama-3-8b")),
        ("hardware.gpu", "b200", ("hardware.gpu", "h100-sxm")),
        ("recompute", "some", ("recompute", "selective")),
        ("cost.efficiency", 0.5, ("cost.efficiency", "unit")),
        ("batch.seq_len", 0, ("batch.seq_len", ">= 1")),
        ("batch.global_batch", 2, ("1F1B needs at least pp = 4",)),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, path: str, value: Any, needles: tuple[str, ...]
) -> None:
    _refused(tmp_path, _with(path, value), *needles)


def test_bad_json_and_missing_fields(tmp_path: Path) -> None:
    _refused(tmp_path, "{not json", "invalid JSON")
    w = small()
    del w["batch"]
    _refused(tmp_path, w, "batch", "is required")
    w = small()
    w["model"] = {"layers": 4, "hidden": 64}
    _refused(tmp_path, w, "model.heads", "is required")


def test_tp_must_divide_heads_and_layers_the_stages(tmp_path: Path) -> None:
    w = _with("parallel", {"tp": 3})
    w["hardware"] = {"gpu": "h100-sxm", "gpus_per_node": 3, "nodes": 1}
    _refused(tmp_path, w, "parallel.tp", "32 heads")
    w = _with("parallel", {"pp": 4, "schedule": "interleaved_1f1b", "virtual_stages": 3})
    _refused(tmp_path, w, "parallel.pp", "must divide the model's 32 layers")


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        ({"hardware": {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 20_000}}, ("MAX_GPUS",)),
        (
            {"batch": {"global_batch": 40_000, "micro_batch": 1, "seq_len": 8}},
            ("MAX_MICROBATCHES",),
        ),
        ({"batch": {"global_batch": 8, "micro_batch": 1, "seq_len": 10**8}}, ("MAX_SEQ_LEN",)),
        (
            {
                "model": {
                    "layers": 4096,
                    "hidden": 64,
                    "heads": 4,
                    "kv_heads": 4,
                    "ffn": 64,
                    "vocab": 8,
                }
            },
            ("MAX_LAYERS",),
        ),
        (
            {
                "batch": {"global_batch": 16_000, "micro_batch": 1, "seq_len": 8},
                "parallel": {"pp": 4, "schedule": "interleaved_1f1b", "virtual_stages": 32},
                "model": {
                    "layers": 128,
                    "hidden": 64,
                    "heads": 4,
                    "kv_heads": 4,
                    "ffn": 64,
                    "vocab": 8,
                },
            },
            ("MAX_PIPELINE_ACTIONS",),
        ),
        ({"parallel": {"pp": 4, "virtual_stages": 1000}}, ("MAX_VIRTUAL_STAGES",)),
    ],
)
def test_bounds_are_refused_before_any_work(
    tmp_path: Path, edit: dict[str, Any], needles: tuple[str, ...]
) -> None:
    _refused(tmp_path, {**small(), **edit}, "bound", *needles)


def test_unknown_preset_and_both_sources(tmp_path: Path) -> None:
    proc = sim_cli("train", "--preset", "nope")
    assert proc.returncode == 2 and "unknown preset 'nope'" in proc.stderr
    assert "pipeline-1f1b" in proc.stderr and proc.stdout == ""
    proc = sim_cli("train")
    assert proc.returncode == 2 and "exactly one" in proc.stderr


def test_a_1024_gpu_256_microbatch_step() -> None:
    """The bench's step: 16 pipeline ranks × 512 actions, every one on the timeline."""
    out = run_training(train_preset("gpt-3-175b-1024xa100"))
    assert out["workload"]["hardware"]["gpus"] == 1024
    assert out["workload"]["batch"]["microbatches"] == 256
    assert [len(out["timeline"][str(r)]) for r in range(16)] == [512] * 16
    assert out["links"] == {"tp": "nvlink", "dp": "network", "pp": ["network"]}
    # 1F1B's bubble under a real cost: near Narayanan's (p-1)/(m+p-1), never below it
    assert out["bubble_formula"] <= out["bubble_fraction"] < 2 * out["bubble_formula"]


def test_bench_prints_the_training_step() -> None:
    from sim.bench import TRAIN_BENCH_PRESET, train_lines

    first, second = train_lines()
    assert TRAIN_BENCH_PRESET in first and "1,024 GPUs" in first and "256 micro-batches" in first
    assert "8,192 pipeline actions" in first
    assert "in-process" in second and "process `python -m sim train`" in second


def test_each_preset_names_itself() -> None:
    assert all(w["scenario"]["id"] == name for name, w in PRESETS.items())


def test_a_number_of_hundreds_of_digits_is_refused_by_its_size(tmp_path: Path) -> None:
    _refused(tmp_path, _with("parallel.dp", 10**300), "parallel.dp", "301-digit number", "MAX_GPUS")
