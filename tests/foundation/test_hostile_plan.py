"""Hostile or inconsistent plans (issue 10, cases 6, 7 and 12): control characters are refused at
validation with their JSON path, a plan whose language disagrees with page.toml is refused naming
both files, and an error found after the plan stage names the file a human edits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_build_inputs import EXAMPLE, folder, one_error_line, tujie  # noqa: F401

from pipeline.artifacts.sim import format_number
from pipeline.errors import PlanError, SimulationFailed
from pipeline.plan.model import control_violations, parse_plan
from pipeline.simulate.results import run_sim

PLAN = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))


def _write(folder: Path, data: dict) -> None:  # noqa: F811
    (folder / "plan.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x00", "\x7f", "\x9b", "\x85"])
def test_control_character_in_takeaway_is_refused(char: str):
    data = json.loads(json.dumps(PLAN))
    data["takeaway"] = f"{char}]0;owned{char}" + data["takeaway"]
    with pytest.raises(PlanError) as err:
        parse_plan(data, "plan.json")
    assert [v.path for v in err.value.violations] == ["takeaway"]
    assert f"U+{ord(char):04X}" in str(err.value)


def test_newline_allowed_in_prose_but_not_in_a_caption():
    data = json.loads(json.dumps(PLAN))
    data["concepts"][0]["body"] = data["concepts"][0]["body"] + "\n"
    data["concepts"][0]["trouble"]["caption"] = "两行\n标题"
    found = control_violations(data)
    assert [v.path for v in found] == ["concepts[0].trouble.caption"]


@given(
    st.text(
        alphabet=st.characters(min_codepoint=0, max_codepoint=0x9F, exclude_characters="\n\t"),
        min_size=1,
        max_size=8,
    )
)
def test_any_control_character_anywhere_is_found(text: str):
    """Property: a string holds a C0/C1 control or DEL exactly when it is reported."""
    has_control = any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)
    found = control_violations({"glossary": [{"term": text}]})
    assert bool(found) == has_control
    if found:
        assert found[0].path == "glossary[0].term"


def test_control_character_build_exits_2_and_writes_no_page(folder: Path, tmp_path: Path):  # noqa: F811
    data = json.loads(json.dumps(PLAN))
    data["takeaway"] = "\x1b]0;pwned\x07" + data["takeaway"]
    _write(folder, data)
    out = tmp_path / "out"
    r = tujie("build", str(folder), "--out", str(out), "--until", "render")
    assert r.returncode == 2
    line = one_error_line(r)
    assert "takeaway" in line and "U+001B" in line and "\x1b" not in r.stderr
    assert not list(out.rglob("index.html"))


def test_plan_language_must_agree_with_page_toml(folder: Path, tmp_path: Path):  # noqa: F811
    data = json.loads(json.dumps(PLAN))
    data["lang"] = "en"  # the example's page.toml says lang = "zh"
    _write(folder, data)
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    line = one_error_line(r)
    assert "plan.json" in line and "page.toml" in line and "'en'" in line and '"zh"' in line
    r = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert r.returncode == 2 and "page.toml" in one_error_line(r)


def test_late_plan_error_names_the_folders_plan(folder: Path, tmp_path: Path):  # noqa: F811
    """The ruler's techniques are known only once the sweep ran, in the sim stage: its error must
    name SRC/plan.json, the file to edit, not the output copy."""
    data = json.loads(json.dumps(PLAN))
    data["concepts"][3]["technique"] = "warp_drive"
    _write(folder, data)
    out = tmp_path / "out"
    r = tujie("build", str(folder), "--out", str(out), "--until", "sim")
    assert r.returncode == 2, r.stderr
    line = one_error_line(r)
    assert "concepts[3].technique" in line and "warp_drive" in line
    assert str(folder / "plan.json") in line and str(out) not in line


def test_a_scenario_the_simulator_refuses_is_one_line_exit_2(folder: Path, tmp_path: Path):  # noqa: F811
    """The folder's plan, edited after a build, names a scenario the simulator does not know:
    the page rules find it, one line with its JSON path, exit 2 (before any run). (Editing the
    output copy instead changes nothing: it is the plan stage's output, made again from the
    folder's plan.json once it is not what the stage wrote.)"""
    out = tmp_path / "out"
    assert tujie("build", str(folder), "--out", str(out), "--until", "plan").returncode == 0
    data = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    data["concepts"][0]["fix"]["scenario"] = "no_such_scenario"
    _write(folder, data)
    r = tujie("build", str(folder), "--out", str(out), "--until", "sim")
    assert r.returncode == 2, r.stderr
    line = one_error_line(r)
    assert "concepts[0].fix.scenario: unknown scenario 'no_such_scenario'" in line
    assert "Traceback" not in r.stderr


def test_a_run_the_simulator_refuses_is_simulation_failed() -> None:
    """Where the pipeline runs the simulator outside the page rules (`run_sim`), a `SimError`
    is mapped into tujie's tree: `SimulationFailed` naming the run and the simulator's reason."""
    plan = parse_plan(json.loads(json.dumps(PLAN)))
    plan.concepts[0].fix.scenario = "no_such_scenario"
    with pytest.raises(SimulationFailed) as err:
        run_sim(plan)
    assert "could not run no_such_scenario/" in str(err.value) and "unknown preset" in str(err.value)


def test_validate_says_valid_with_the_plans_size(folder: Path, tmp_path: Path):  # noqa: F811
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"), "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report == {"ok": True, "plan": str(folder / "plan.json"), "concepts": len(PLAN["concepts"])}
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"))
    assert f"valid ({len(PLAN['concepts'])} concepts, {len(PLAN['route'])} route stops)" in r.stdout


def test_validate_knows_the_rulers_techniques(folder: Path, tmp_path: Path):  # noqa: F811
    """validate runs the simulator anyway: a technique the sweep did not measure is found there,
    not first by the build's sim stage."""
    data = json.loads(json.dumps(PLAN))
    data["concepts"][3]["technique"] = "warp_drive"
    _write(folder, data)
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    line = one_error_line(r)
    assert "concepts[3].technique" in line and "warp_drive" in line and "plan.json" in line


def test_a_metric_name_the_phone_ruler_cannot_fit_is_refused_with_its_path(
    folder: Path, tmp_path: Path  # noqa: F811
):
    """Issue 13: a 16-character metric name passes the schema (24) but not the phone ruler's
    column: `tujie validate` names the file and `ruler.metrics[1].name` (and so would the repair
    loop, which runs the same checks), instead of render failing after the plan was paid for."""
    data = json.loads(json.dumps(PLAN))
    data["ruler"]["metrics"][1]["name"] = "首 token 延迟（TTFT）"
    _write(folder, data)
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    line = one_error_line(r)
    assert str(folder / "plan.json") in line
    assert "ruler.metrics[1].name: does not fit its drawing: ruler (narrow)" in line
    assert "首 token 延迟（TTFT）" in line and "room is" in line


def test_a_knob_changes_the_number_a_caption_shows(folder: Path, tmp_path: Path):  # noqa: F811
    """End to end: the chunked-prefill card sets D's prompt length to the article's 30 tokens;
    the sim stage runs the knobbed workload (its own trace file) and the page's caption carries
    the knobbed run's number."""
    from pipeline.simulate.results import Run, run_trace

    data = json.loads(json.dumps(PLAN))
    card = data["concepts"][6]
    assert card["fix"]["scenario"] == card["trouble"]["scenario"] == "chunked_prefill"
    card["fix"]["caption"] = "D 首字 {D.ttft} 毫秒"
    for side in ("trouble", "fix"):
        card[side]["knobs"] = [{"name": "d_prompt", "value": 30}]
    _write(folder, data)
    out = tmp_path / "out"
    r = tujie("build", str(folder), "--out", str(out), "--until", "render")
    assert r.returncode == 0, r.stderr
    (build,) = out.glob("*/index.html")
    saved = build.parent / "sim" / "chunked_prefill--with+d_prompt=30.json"
    trace = json.loads(saved.read_text(encoding="utf-8"))
    assert trace["scenario"]["knobs"] == {"d_prompt": 30}
    knobbed = trace["requests"]["D"]["ttft"]
    preset = run_trace(Run("chunked_prefill", "with"))["requests"]["D"]["ttft"]
    assert format_number(knobbed) != format_number(preset)
    page = build.read_text(encoding="utf-8")
    shown, before = format_number(knobbed), format_number(preset)
    assert f"D 首字 {shown} 毫秒" in page and f"D 首字 {before} 毫秒" not in page
