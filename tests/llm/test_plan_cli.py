"""`tujie plan` end to end: the real CLI and SDK against the fake Messages API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fake_anthropic import (
    CURRENT_SONNET,
    NO_STRUCTURED_MODEL,
    TEST_KEY,
    FakeAnthropic,
    plan_reply,
    rule_breaker,
    usage,
)
from plans import invalid_plan_input

from pipeline.plan.extract import PLAN_TOOL

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def run_plan(out: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUJIE_"))}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "plan", str(EXAMPLE), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**base, **env},
        timeout=300,
    )


def _shipped_answer() -> dict[str, Any]:
    """The example's hand-reviewed plan as a model would answer it (no meta, no format)."""
    shipped = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    return {k: v for k, v in shipped.items() if k not in ("meta", "format")}


def _env(fake: FakeAnthropic, model: str | None = None) -> dict[str, str]:
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
    return env | ({"TUJIE_MODEL": model} if model else {})


def test_tujie_plan_against_the_fake(fake: FakeAnthropic, tmp_path: Path) -> None:
    shipped = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    fake.replies = [plan_reply(_shipped_answer(), use=usage(5000, 4000, 4500, 0))]
    result = run_plan(tmp_path, {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY})
    assert result.returncode == 0, result.stderr
    written = json.loads((tmp_path / "llm-inference" / "plan.json").read_text(encoding="utf-8"))
    assert [c["id"] for c in written["concepts"]] == [c["id"] for c in shipped["concepts"]]
    assert written["meta"]["made_by"] == "llm"
    printed = result.stdout + result.stderr
    assert "5000" in printed.replace(",", "") and "$" in printed  # usage and cost
    assert TEST_KEY not in printed
    assert len(fake.messages()) == 1


def test_tujie_plan_without_a_key_exits_3(tmp_path: Path) -> None:
    result = run_plan(tmp_path, {})
    assert result.returncode == 3
    assert "ANTHROPIC_API_KEY" in result.stderr and "plan.json" in result.stderr
    assert not (tmp_path / "llm-inference" / "plan.json").exists()


def test_failed_repair_still_prints_what_it_cost(fake: FakeAnthropic, tmp_path: Path) -> None:
    """Paid attempts that never gave a valid plan: exit 4, and the spend is said (issue 10.12)."""
    fake.replies = [plan_reply(invalid_plan_input(), use=usage(7000, 3000, 0, 0)) for _ in range(3)]
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
    result = run_plan(tmp_path, env)
    assert result.returncode == 4, result.stderr
    spent = [ln for ln in result.stderr.splitlines() if ln.startswith("spent:")]
    assert len(spent) == 1 and "21,000" in spent[0] and "$" in spent[0], result.stderr


def test_failed_repair_reports_cost_as_json(fake: FakeAnthropic, tmp_path: Path) -> None:
    fake.replies = [plan_reply(invalid_plan_input(), use=usage(7000, 3000, 0, 0)) for _ in range(3)]
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
    result = run_plan(tmp_path, env, "--json")
    assert result.returncode == 4, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["usage"]["input_tokens"] == 21000
    assert report["usage"]["cost_usd"] > 0


# ---------------------------------------------------------------------------------------------
# Issue 13 item 7: the current models (structured outputs) and the fallback (forced tool use)


def test_current_sonnet_plans_through_structured_outputs(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """TUJIE_MODEL = the current Sonnet, against a fake that refuses forced tool use."""
    fake.replies = [plan_reply(_shipped_answer())]
    result = run_plan(tmp_path, _env(fake, CURRENT_SONNET))
    assert result.returncode == 0, result.stderr
    [req] = fake.messages()
    assert req.body["model"] == CURRENT_SONNET
    fmt = req.body["output_config"]["format"]
    assert fmt["type"] == "json_schema" and fmt["schema"]["additionalProperties"] is False
    assert "tool_choice" not in req.body and "tools" not in req.body
    assert not {"temperature", "top_p", "top_k"} & set(req.body)
    written = json.loads((tmp_path / "llm-inference" / "plan.json").read_text(encoding="utf-8"))
    assert written["meta"]["model"] == CURRENT_SONNET
    assert CURRENT_SONNET in result.stdout and "$" in result.stdout


def test_model_without_structured_outputs_plans_through_tool_use(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """TUJIE_MODEL = a model the table lists without structured outputs (the fake answers
    `output_config` with a 400 for it): the plan comes from a forced tool call."""
    fake.replies = [plan_reply(_shipped_answer())]
    result = run_plan(tmp_path, _env(fake, NO_STRUCTURED_MODEL))
    assert result.returncode == 0, result.stderr
    [req] = fake.messages()
    assert "output_config" not in req.body
    assert req.body["tool_choice"] == {"type": "tool", "name": PLAN_TOOL}
    assert [t["name"] for t in req.body["tools"]] == [PLAN_TOOL]
    assert "minLength" in json.dumps(req.body["tools"][0]["input_schema"])  # the full schema
    written = json.loads((tmp_path / "llm-inference" / "plan.json").read_text(encoding="utf-8"))
    assert written["meta"]["model"] == NO_STRUCTURED_MODEL


def test_rule_breaking_answer_is_repaired(fake: FakeAnthropic, tmp_path: Path) -> None:
    """A schema-valid plan that breaks a page rule (an invented route URL) is sent back with
    the violation, as text, and the second answer is written."""
    broken = _shipped_answer()
    broken["route"][0]["url"] = "https://invented.example.com/nowhere"
    fake.replies = [plan_reply(broken), plan_reply(_shipped_answer())]
    result = run_plan(tmp_path, _env(fake, CURRENT_SONNET))
    assert result.returncode == 0, result.stderr
    first, repair = fake.messages()
    [said] = repair.body["messages"][2]["content"]
    assert "route[0].url: not from the sources" in said["text"]
    assert "2 attempt(s)" in result.stdout


def test_rule_breaker_fails_with_the_spend_printed(fake: FakeAnthropic, tmp_path: Path) -> None:
    """The model answers the same rule-breaking plan every round: exit 4 (PlanRepairFailed),
    the spend of all three calls printed, the best attempt saved for editing."""
    fake.models[CURRENT_SONNET] = rule_breaker(invalid_plan_input())
    result = run_plan(tmp_path, _env(fake, CURRENT_SONNET))
    assert result.returncode == 4, result.stderr
    assert len(fake.messages()) == 3
    [spent] = [ln for ln in result.stderr.splitlines() if ln.startswith("spent:")]
    # three calls at the fake's default usage (1,200 input tokens each), priced for Sonnet 5.5
    assert "3 call(s)" in spent and "3,600" in spent and "$" in spent
    assert (tmp_path / "llm-inference" / "plan.invalid.json").exists()
