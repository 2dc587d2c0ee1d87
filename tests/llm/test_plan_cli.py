"""`tujie plan` end to end: the real CLI and SDK against the fake Messages API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_anthropic import TEST_KEY, FakeAnthropic, tool_reply, usage
from plans import invalid_plan_input

from pipeline.plan.extract import PLAN_TOOL

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def run_plan(
    out: Path, env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUJIE_"))}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "plan", str(EXAMPLE), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**base, **env},
        timeout=300,
    )


def test_tujie_plan_against_the_fake(fake: FakeAnthropic, tmp_path: Path) -> None:
    shipped = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    answer = {k: v for k, v in shipped.items() if k not in ("meta", "format")}
    fake.replies = [tool_reply(PLAN_TOOL, answer, use=usage(5000, 4000, 4500, 0))]
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
    fake.replies = [
        tool_reply(PLAN_TOOL, invalid_plan_input(), use=usage(7000, 3000, 0, 0)) for _ in range(3)
    ]
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
    result = run_plan(tmp_path, env)
    assert result.returncode == 4, result.stderr
    spent = [ln for ln in result.stderr.splitlines() if ln.startswith("spent:")]
    assert len(spent) == 1 and "21,000" in spent[0] and "$" in spent[0], result.stderr


def test_failed_repair_reports_cost_as_json(fake: FakeAnthropic, tmp_path: Path) -> None:
    fake.replies = [
        tool_reply(PLAN_TOOL, invalid_plan_input(), use=usage(7000, 3000, 0, 0)) for _ in range(3)
    ]
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
    result = run_plan(tmp_path, env, "--json")
    assert result.returncode == 4, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["usage"]["input_tokens"] == 21000
    assert report["usage"]["cost_usd"] > 0
