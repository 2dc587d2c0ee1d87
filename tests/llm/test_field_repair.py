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


def test_a_technique_id_on_a_general_card_is_sent_back_as_leave_it_empty(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """Played as a model on a saved chapter (Bitcoin fees): the prompt's ruler rule spoke of
    cards that name a technique, so the general cards with `effects` also got technique ids of
    their own ("rbf"); the reply said only "unknown technique (known: )". Now the repair says
    what to do, and rule 10 says it first."""
    src, answer = _folder(tmp_path, "cpu-caches")
    wrong = json.loads(json.dumps(answer))
    rows = [i for i, c in enumerate(wrong["concepts"]) if c.get("effects")]
    for i in rows:
        wrong["concepts"][i]["technique"] = wrong["concepts"][i]["id"]
    fake.replies = [plan_reply(wrong, use=usage()), plan_reply(answer, use=usage())]
    result = tujie(fake, "build", str(src), "--out", str(tmp_path / "out"), "--until", "plan")
    assert result.returncode == 0, result.stderr
    first, repair = fake.messages()
    system = first.body["system"]
    system = system if isinstance(system, str) else " ".join(b["text"] for b in system)
    assert "A field without a sweep has no techniques" in " ".join(system.split())
    said = " ".join(b.get("text", "") for b in repair.body["messages"][2]["content"])
    for i in rows:
        assert f"concepts[{i}].technique: the general field measures no techniques: leave " \
               "`technique` empty" in said, said
    plan = json.loads((tmp_path / "out" / "cpu-caches" / "plan.json").read_text(encoding="utf-8"))
    assert all(not c.get("technique") for c in plan["concepts"])
