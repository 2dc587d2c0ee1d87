"""Issue 23: a plan that draws a serving scenario for a concept of another field is sent back by
the repair loop with its JSON path (the real CLI and SDK against the fake Messages API, on copies
of the training and cpu-caches example folders without their reviewed plans)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic, plan_reply, usage
from test_accepted_builds import tujie

REPO = Path(__file__).resolve().parents[2]


def _folder(tmp: Path, name: str) -> tuple[Path, dict[str, Any]]:
    src = tmp / name
    shutil.copytree(REPO / "examples" / name, src)
    shipped = json.loads((src / "plan.json").read_text(encoding="utf-8"))
    (src / "plan.json").unlink()
    return src, {k: v for k, v in shipped.items() if k not in ("meta", "format")}


@pytest.mark.parametrize(("name", "field"), [("training-at-scale", "training"),
                                             ("cpu-caches", "general")])
def test_a_serving_scenario_for_another_fields_concept_is_sent_back_with_its_path(
    fake: FakeAnthropic, tmp_path: Path, name: str, field: str
) -> None:
    src, answer = _folder(tmp_path, name)
    wrong = json.loads(json.dumps(answer))
    card = wrong["concepts"][2]
    assert card["field"] == field
    card["trouble"].update(scene="timeline", scenario="batching", variant="without",
                           caption="a stall", knobs=[])
    card["trouble"].pop("example", None)
    card["trouble"].pop("show", None)
    fake.replies = [plan_reply(wrong, use=usage()), plan_reply(answer, use=usage())]
    result = tujie(fake, "build", str(src), "--out", str(tmp_path / "out"), "--until", "plan")
    assert result.returncode == 0, result.stderr
    first, repair = fake.messages()
    said = " ".join(b.get("text", "") for b in repair.body["messages"][2]["content"])
    assert "concepts[2].trouble.scenario" in said or "concepts[2].trouble.scene" in said, said
    assert "serving field's" in said, said
    plan = json.loads((tmp_path / "out" / name / "plan.json").read_text(encoding="utf-8"))
    got, want = plan["concepts"][2]["trouble"], answer["concepts"][2]["trouble"]
    assert {k: got.get(k) for k in want} == want  # the repaired answer is the one kept
