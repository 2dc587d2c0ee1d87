"""The ruler reads the sweep of the field its cards' techniques belong to: a training page's
techniques are measured by the training sweep only, so reading serving's drew its ruler with
no row at all (and the validator, finding no row, checked no cell)."""

from __future__ import annotations

from pathlib import Path

from pipeline.artifacts.sim import SweepView
from pipeline.draw.ruler import draw_ruler, ruler_rows
from pipeline.plan.model import load_plan
from pipeline.simulate.results import runs_key, sweep_json

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_training_page_reads_the_training_sweep() -> None:
    plan = load_plan(EXAMPLES / "training-at-scale" / "plan.json")
    sweep = SweepView.from_json(sweep_json(plan=plan))
    named = [c.technique for c in plan.concepts if c.technique]
    assert len(named) >= 3
    assert [c.technique for c in ruler_rows(plan, sweep)] == named
    svg = draw_ruler(plan, sweep, lang="en")
    assert all(c.name_en in svg for c in plan.concepts if c.technique)


def test_a_serving_page_keeps_the_serving_sweep() -> None:
    plan = load_plan(EXAMPLES / "llm-inference-en" / "plan.json")
    assert sweep_json(plan=plan) == sweep_json()


def test_a_page_mixing_fields_gets_every_fields_techniques() -> None:
    training = load_plan(EXAMPLES / "training-at-scale" / "plan.json")
    serving = load_plan(EXAMPLES / "llm-inference-en" / "plan.json")
    serving_card = next(c for c in serving.concepts if c.technique)
    mixed = training.model_copy(update={"concepts": [*training.concepts, serving_card]})
    ids = {t.id for t in SweepView.from_json(sweep_json(plan=mixed)).techniques}
    assert serving_card.technique in ids and "zero_3" in ids


def test_the_ruler_field_is_part_of_the_sim_stage_key() -> None:
    plan = load_plan(EXAMPLES / "training-at-scale" / "plan.json")
    bare = plan.model_copy(update={
        "concepts": [c.model_copy(update={"technique": None}) for c in plan.concepts]})
    assert runs_key(plan) != runs_key(bare)
