"""An answer the repair loop accepts is one `tujie build` builds: the real CLI and SDK against the
fake Messages API, on a copy of the example folder without its reviewed plan.

The two cases that once broke it: a caption whose placeholder NAME is longer than the limit
but whose filled VALUE fits (the plan stage measured the name and exited 2 after the paid call),
and the same panel never simulated (its placeholder reached the page raw)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from fake_anthropic import TEST_KEY, FakeAnthropic, plan_reply, usage

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"
# 25 characters by name, 10 once filled ("4.8毫秒全在读权重"): within the 15 of H1 only after filling.
LONG_BY_NAME = "{decode_memory_ms}毫秒全在读权重"


def folder_without_plan(tmp: Path) -> Path:
    src = tmp / "llm-inference"
    shutil.copytree(EXAMPLE, src)
    (src / "plan.json").unlink()
    return src


def shipped_answer() -> dict[str, Any]:
    """The example's reviewed plan as a model answers it (no meta, no format)."""
    shipped = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    return {k: v for k, v in shipped.items() if k not in ("meta", "format")}


def tujie(fake: FakeAnthropic, *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TUJIE_"))}
    env = {**base, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,
    )


def answer_with_long_placeholder() -> dict[str, Any]:
    answer = shipped_answer()
    card = next(c for c in answer["concepts"] if c["trouble"].get("scenario") == "arithmetic")
    card["trouble"]["caption"] = LONG_BY_NAME
    return answer


def test_a_caption_long_only_by_its_placeholder_name_passes_the_plan_stage(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    src = folder_without_plan(tmp_path)
    fake.replies = [plan_reply(answer_with_long_placeholder(), use=usage())]
    result = tujie(fake, "build", str(src), "--out", str(tmp_path / "out"), "--until", "plan")
    assert result.returncode == 0, result.stderr
    assert "after filling" not in result.stderr
    assert len(fake.messages()) == 1  # accepted at once: the loop and the stage agree


def test_its_panel_is_simulated_and_the_page_shows_the_number(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    src = folder_without_plan(tmp_path)
    fake.replies = [plan_reply(answer_with_long_placeholder(), use=usage())]
    out = tmp_path / "out"
    result = tujie(fake, "build", str(src), "--out", str(out), "--until", "render")
    assert result.returncode == 0, result.stderr
    page = (out / "llm-inference" / "index.html").read_text(encoding="utf-8")
    assert "{decode_memory_ms}" not in page
    trace = json.loads(
        (out / "llm-inference" / "sim" / "arithmetic--without.json").read_text(encoding="utf-8")
    )
    assert trace["steps"], "the panel's scenario was run"
    filled = re.search(r"([\d.]+)毫秒全在读权重", page)
    assert filled is not None, "the caption is on the page with its number"
