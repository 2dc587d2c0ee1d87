"""The walkthrough's English sentences agree in number: "B, C finish and free their KV blocks",
"D finishes and frees its KV blocks" (a group used to read "B, C finishes")."""

from __future__ import annotations

import re

from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving.walkthrough import step_sentences
from sim.presets.scenarios import run_preset

GROUP = re.compile(r"\b[A-Z](?:, [A-Z])+ (finishes|is preempted|still waits|gets)\b")


def test_groups_take_plural_verbs_and_one_request_singular() -> None:
    seen = []
    for preset in ("spec_decode/with", "batching/without", "preemption/with", "admission/with"):
        for row in step_sentences(TraceView.from_json(run_preset(preset, detail=True)), "en"):
            assert not GROUP.search(row.sentence), row.sentence
            seen.append(row.sentence)
    text = " ".join(seen)
    assert re.search(r"\b[A-Z](?:, [A-Z])+ finish and free their KV blocks", text)
    assert re.search(r"\b[A-Z] finishes and frees its KV blocks", text)
