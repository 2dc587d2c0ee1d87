"""`tujie plan` end to end: the real CLI and SDK against the fake Messages API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_anthropic import TEST_KEY, FakeAnthropic, tool_reply, usage

from pipeline.extract import PLAN_TOOL

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"


def run_plan(out: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUJIE_"))}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "plan", str(EXAMPLE), "--out", str(out)],
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
