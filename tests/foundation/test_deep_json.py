"""plan.json (and page.toml) that would give a traceback: nested 100,000 deep (RecursionError),
knobs of NaN, Infinity or 1e400, a 5,000-digit number. Each is one line naming the file and the
JSON path, exit 2 (issue 22, deliverable 5)."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_build_inputs import EXAMPLE, tujie

from pipeline.errors import PlanError
from pipeline.jsonlimits import MAX_JSON_DEPTH, JSONRefused, NonFinite, loads, nesting_depth
from pipeline.plan.model import load_plan, parse_plan

KNOB = "concepts[0].trouble.knobs[0].value"


def _folder(tmp_path: Path, plan_text: str) -> Path:
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src)
    (src / "plan.json").write_text(plan_text, encoding="utf-8")
    return src


def _plan_with_knob(literal: str) -> str:
    plan = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    plan["concepts"][0]["trouble"]["knobs"] = [{"name": "prompt_tokens", "value": 12345}]
    return json.dumps(plan, ensure_ascii=False).replace('"value": 12345', f'"value": {literal}')


def _error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    [line] = [ln for ln in result.stderr.splitlines() if ln.strip()]
    return line


def test_a_plan_nested_100000_deep_is_one_line(tmp_path: Path) -> None:
    src = _folder(tmp_path, "[" * 100_000 + "]" * 100_000)
    line = _error_line(tujie("validate", str(src), "--out", str(tmp_path / "out")))
    assert str(src / "plan.json") in line
    assert f"(json): nested more than {MAX_JSON_DEPTH} levels deep" in line


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_knob_that_is_not_a_finite_number_is_refused_with_its_path(
    tmp_path: Path, literal: str
) -> None:
    path = tmp_path / "plan.json"
    path.write_text(_plan_with_knob(literal), encoding="utf-8")
    with pytest.raises(PlanError) as refused:
        load_plan(path)
    assert [str(v) for v in refused.value.violations] == [f"{KNOB}: {literal} is not a finite number"]


def test_tujie_validate_names_the_nan_knob(tmp_path: Path) -> None:
    src = _folder(tmp_path, _plan_with_knob("NaN"))
    line = _error_line(tujie("validate", str(src), "--out", str(tmp_path / "out")))
    assert f"{KNOB}: NaN is not a finite number" in line


def test_non_finite_numbers_from_a_model_are_refused_too() -> None:
    """A model's tool input is parsed by the SDK (plain floats): parse_plan still finds them."""
    data = json.loads(_plan_with_knob("1"))
    data["concepts"][0]["trouble"]["knobs"][0]["value"] = math.inf
    with pytest.raises(PlanError, match=re.escape(f"{KNOB}: inf is not a finite number")):
        parse_plan(data)


def test_a_number_too_long_for_python_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(_plan_with_knob("1" * 5000), encoding="utf-8")
    with pytest.raises(PlanError, match=r"\(json\): a number of 5,000 digits"):
        load_plan(path)


def test_page_toml_nested_deep_is_one_line(tmp_path: Path) -> None:
    src = _folder(tmp_path, (EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    (src / "page.toml").write_text("title = " + "[" * 50_000, encoding="utf-8")
    line = _error_line(tujie("ingest", str(src), "--out", str(tmp_path / "out")))
    assert "page.toml: not valid TOML (nested too deeply)" in line


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    if isinstance(value, dict | list):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max((_depth(c) for c in children), default=0)
    return 0


@given(JSON_VALUES)
def test_nesting_depth_is_the_recursive_depth(value: Any) -> None:
    assert nesting_depth(value, stop_above=1000) == _depth(value)
    assert loads(json.dumps(value)) == value


@given(st.integers(min_value=1, max_value=3 * MAX_JSON_DEPTH))
def test_loads_refuses_exactly_past_the_limit(depth: int) -> None:
    text = "[" * depth + "]" * depth
    if depth <= MAX_JSON_DEPTH:
        assert nesting_depth(loads(text)) == depth
    else:
        with pytest.raises(JSONRefused, match="nested more than"):
            loads(text)


def test_non_finite_literals_are_kept_as_written() -> None:
    data = loads('[NaN, Infinity, -Infinity, 1e400, 2.5]')
    assert [v.literal for v in data[:4]] == ["NaN", "Infinity", "-Infinity", "1e400"]
    assert all(isinstance(v, NonFinite) for v in data[:4]) and type(data[4]) is float
