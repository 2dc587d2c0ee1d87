"""The training field in the registry (issue 24, deliverable 3): it is registered next to
serving; its placeholders carry exactly the numbers of the `sim train` runs behind them; its
knobs are checked like serving's; its sweep is deterministic, every row measured where its
technique matters, and each row's signs are the technique's; the prompt names every entry; the
walkthrough tells a run action by action; and a plan for a training folder that draws a serving
scenario is refused by `tujie validate` with its JSON path.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_build_inputs import tujie

from pipeline import fields
from pipeline.artifacts.sim import SimResults
from pipeline.fields.base import Run
from pipeline.fields.training import FIELD as TRAINING
from pipeline.fields.training import walk_steps
from pipeline.fields.training.catalogue import DRAWN_BY, SCENE_SHOWS, documented
from pipeline.fields.training.view import TrainingView
from pipeline.fields.training.walkthrough import comparison_rows, moments
from pipeline.plan.job import render_system
from pipeline.plan.model import parse_plan
from pipeline.plan.rules import plan_violations
from pipeline.simulate.results import run_sim
from sim.presets.training import SCENARIOS, scenario
from sim.presets.training_sweep import METRICS, TECHNIQUES, UNITS, training_sweep
from sim.training.run import run_training

VARIANTS = ("without", "with")


@pytest.fixture(scope="module")
def cat() -> Any:
    return TRAINING.catalogue()


def test_registered_next_to_serving() -> None:
    assert list(fields.FIELDS)[:2] == ["serving", "training"] and "general" in fields.FIELDS
    both = fields.catalogues()
    assert set(both.by_field) == {"serving", "training", "general"}
    assert both.scene_owner("pipeline") == "training" and both.scene_owner("timeline") == "serving"
    assert fields.field("training") is TRAINING


# ---- placeholders: the run's own numbers ------------------------------------------------------


def _gb(nbytes: float) -> str:
    v = round(nbytes / 1e9, 1)
    return str(int(v)) if v == int(v) else f"{v:.1f}"


def _expected(raw: dict[str, Any]) -> dict[str, str]:
    """Values computed here, straight from `sim train`'s JSON (not through the field's view)."""
    step, mem0 = raw["step"], raw["memory"]["0"]
    peak = max(m["total"] for m in raw["memory"].values())
    out = {
        "gpus": str(raw["workload"]["hardware"]["gpus"]),
        "microbatches": str(raw["workload"]["batch"]["microbatches"]),
        "peak_gb": _gb(peak),
        "rank0.peak_gb": _gb(mem0["total"]),
        "rank0.activations_gb": _gb(mem0["activations"]),
        "rank0.held": str(mem0["microbatches_held"]),
        "hbm_gb": _gb(raw["workload"]["hardware"]["hbm"]),
    }
    if raw["workload"]["parallel"]["pp"] > 1:
        bubble = round(100 * raw["bubble_fraction"], 1)
        out["bubble_pct"] = str(int(bubble)) if bubble == int(bubble) else f"{bubble:.1f}"
    if step["mfu"] is not None:
        mfu = round(100 * step["mfu"], 1)
        out["mfu_pct"] = str(int(mfu)) if mfu == int(mfu) else f"{mfu:.1f}"
        out["tokens_per_s"] = str(round(step["tokens_per_s"]))
        # seconds: two decimals below ten, one from ten on (the 70B step takes 18.8 s)
        digits = 2 if step["step_time"] < 10 else 1
        out["step_time"] = (f"{round(step['step_time'], digits):.{digits}f}"
                            .rstrip("0").rstrip("."))
    else:
        t = round(step["step_time"], 1)
        out["step_time"] = str(int(t)) if t == int(t) else f"{t:.1f}"
    return out


@pytest.mark.parametrize("sid", sorted(SCENARIOS))
def test_placeholders_carry_the_runs_numbers(cat: Any, sid: str) -> None:
    entry = cat.scenarios[sid]
    assert entry.placeholders and entry.scenes == DRAWN_BY[sid]
    for variant, column in (("without", "without"), ("with", "with_")):
        raw = run_training(scenario(sid).workload(variant) if not SCENARIOS[sid].scaling
                           else _largest_scaling(variant))
        expected = _expected(raw)
        offered = {p.name: getattr(p, column) for p in entry.placeholders}
        for name, value in expected.items():
            assert offered.get(name) == value, (sid, variant, name)
    for p in entry.placeholders:
        assert documented(p.name) and p.meaning and p.unit, (sid, p.name)


def _largest_scaling(variant: str) -> dict[str, Any]:
    from sim.presets.training import scenario_workloads

    return scenario_workloads("scaling", variant)[-1]


def test_pipeline_comics_show_the_textbook_bubble(cat: Any) -> None:
    """Unit cost: (p-1)/(m+p-1) for GPipe and 1F1B, (p-1)/(v*m+p-1) interleaved."""
    values = {sid: {p.name: (p.without, p.with_) for p in cat.scenarios[sid].placeholders}
              for sid in ("pipeline_bubble", "one_f_one_b", "interleaving")}
    assert values["pipeline_bubble"]["bubble_pct"] == ("75", "42.9")  # 3/4, 3/7
    assert values["one_f_one_b"]["bubble_pct"] == ("27.3", "27.3")  # 3/11 both
    assert values["one_f_one_b"]["rank0.held"] == ("8", "4")
    assert values["interleaving"]["bubble_pct"] == ("27.3", "15.8")  # 3/11, 3/19


# ---- knobs ------------------------------------------------------------------------------------


def _training_plan() -> dict[str, Any]:
    return json.loads(json.dumps(TRAINING_PLAN))


def _violations(data: dict[str, Any]) -> list[str]:
    return [str(v) for v in plan_violations(parse_plan(data), catalogue=fields.catalogues())]


def test_knobs_are_checked_like_servings(cat: Any) -> None:
    knob = cat.scenarios["one_f_one_b"].knob("microbatches")
    assert (knob.low, knob.high, knob.preset) == (4, 16, (8, 8))
    assert knob.problem(17) == "knob 'microbatches' must be 4-16 micro-batches"
    assert knob.problem(4.5) == "knob 'microbatches' must be a whole number of micro-batches"
    data = _training_plan()
    fix = data["concepts"][4]["fix"]
    fix["knobs"] = [{"name": "microbatches", "value": 40}, {"name": "warp", "value": 1}]
    data["concepts"][4]["trouble"]["knobs"] = [{"name": "microbatches", "value": 40}]
    found = _violations(data)
    assert "concepts[4].fix.knobs[0].value: knob 'microbatches' must be 4-16 micro-batches" in found
    assert any(v.startswith("concepts[4].fix.knobs[1].name: scenario 'one_f_one_b' has no knob "
                            "'warp'") for v in found)


def test_a_knob_changes_the_run_and_its_numbers() -> None:
    more = TRAINING.values(TRAINING.run(Run("one_f_one_b", "without", (("microbatches", 16),),
                                            "training")))
    assert more["microbatches"] == "16" and more["rank0.held"] == "16"
    assert more["bubble_pct"] == "15.8"  # 3/19
    with pytest.raises(Exception, match="must be 2-4 GPUs"):
        TRAINING.run(Run("one_f_one_b", "with", (("stages", 9),), "training"))


# ---- the sweep --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep() -> dict[str, Any]:
    return training_sweep()


def test_the_sweep_is_deterministic_and_complete(sweep: dict[str, Any]) -> None:
    assert json.dumps(sweep, sort_keys=True) == json.dumps(training_sweep(), sort_keys=True)
    assert sweep["metrics"] == list(METRICS) and "own named workload" in (
        sweep["workload"]["description"])
    assert [t["id"] for t in sweep["techniques"]] == [t.id for t in TECHNIQUES]
    for row in sweep["techniques"]:
        assert row["workload"] and row["label"]
        for side in ("baseline", "variant"):
            assert all(isinstance(row[side][m], float | int) for m in METRICS), row["id"]
            assert row[side]["workload"]["model"]  # the run it measured, to rerun by hand
        # no empty cell: a percentage, or for a share (a "%" unit) from zero, its points
        assert all(row["change_pct"][m] is not None or UNITS[m].startswith("%")
                   for m in METRICS), row["id"]


def _change(sweep: dict[str, Any], tid: str, metric: str) -> float:
    row = next(t for t in sweep["techniques"] if t["id"] == tid)
    return float(row["change_pct"][metric])


def test_each_rows_signs_are_what_the_technique_does(sweep: dict[str, Any]) -> None:
    assert _change(sweep, "zero_3", "memory") < _change(sweep, "zero_2", "memory") < (
        _change(sweep, "zero_1", "memory")) < 0
    assert _change(sweep, "full_recompute", "memory") < 0
    assert _change(sweep, "full_recompute", "step_time") > 0
    assert _change(sweep, "one_f_one_b", "memory") < 0
    assert _change(sweep, "one_f_one_b", "bubble") == 0  # the same bubble (Narayanan et al.)
    assert _change(sweep, "interleaving", "bubble") < 0
    assert _change(sweep, "interleaving", "step_time") < 0
    assert _change(sweep, "more_tp", "memory") < 0
    # at one global batch: accumulating holds one sequence's activations at a time (it fits
    # where one big micro-batch does not), and pays in step time
    assert _change(sweep, "grad_accumulation", "memory") < 0
    assert _change(sweep, "grad_accumulation", "step_time") > 0
    assert _change(sweep, "comm_overlap", "step_time") < 0


def test_each_technique_is_measured_where_it_matters(sweep: dict[str, Any]) -> None:
    rows = {t["id"]: t for t in sweep["techniques"]}
    for tid in ("zero_1", "zero_2", "zero_3", "full_recompute", "one_f_one_b", "more_tp",
                "grad_accumulation"):
        assert not rows[tid]["baseline"]["fits"] and rows[tid]["variant"]["fits"], tid
    assert rows["interleaving"]["baseline"]["bubble"] > 5  # a pipeline with a real bubble
    for tid in ("comm_overlap",):  # the all-reduce crosses the network
        out = run_training(copy.deepcopy(rows[tid]["baseline"]["workload"]))
        assert out["links"]["dp"] == "network" and out["step"]["exposed"]["dp"] > 0, tid


# ---- the prompt -------------------------------------------------------------------------------


def test_the_prompt_names_every_entry(cat: Any) -> None:
    for lang in ("zh", "en"):
        text = render_system(None, lang, [], fields.catalogues())
        assert '== Field "training"' in text and '"field": "training"' in text
        for kind, shows in SCENE_SHOWS.items():
            assert f"- {kind}: {shows}" in text
        for t in cat.techniques:
            assert f"- {t.id}: {t.line}" in text
        for sid, entry in cat.scenarios.items():
            block = text.split(f"* {sid} — ", 1)[1].split("\n   * ", 1)[0]
            assert f"drawn by: {', '.join(entry.scenes)}; clock: {entry.time_unit}" in block
            for p in entry.placeholders:
                assert f"{{{p.name}}} {p.without or '-'}|{p.with_ or '-'}" in block, (sid, p)
            for k in entry.knobs:
                assert f"{k.id} = {k.meaning}, " in block
        assert f"metric ids {', '.join(METRICS)}" in text


# ---- the walkthrough --------------------------------------------------------------------------


def _view(sid: str, variant: str) -> TrainingView:
    return TrainingView.from_json(TRAINING.run(Run(sid, variant, field="training")))


def test_the_1f1b_walkthrough_tells_who_runs_what() -> None:
    view = _view("one_f_one_b", "with")
    steps = walk_steps(view, "en")
    told = moments(view)
    assert len(steps) == len(told) == 12 and [s.index for s in steps] == list(range(1, 13))
    assert steps[0].sentence.startswith("At t = 0: GPU 0 runs F1, GPU 1, 2, 3 idle")
    assert steps[3].sentence == "At t = 3: GPU 0 runs F4, GPU 1 runs F3, GPU 2 runs F2, GPU 3 runs F1."
    # the last stage turns the first micro-batch back while the others wait for its gradient
    assert steps[4].sentence == "At t = 4: GPU 3 runs B1, GPU 0, 1, 2 idle."
    assert steps[-1].sentence.endswith("idle; the last action, and the step ends at 33.")
    for moment in told:  # each GPU's action is the timeline's at that moment
        for rank, action in enumerate(moment.doing):
            lane = view.timeline[rank]
            running = [a for a in lane if a.start <= moment.time < a.end]
            assert (running[0] if running else None) == action
    assert all(s.strip.startswith("<svg") for s in steps)


def test_the_ring_walkthrough_has_two_n_minus_one_steps() -> None:
    view = _view("grad_sync", "with")
    steps = walk_steps(view, "zh")
    assert len(steps) == 2 * (8 - 1)
    assert "归约散播" in steps[0].sentence and "全收集" in steps[-1].sentence
    assert "每张 GPU 都有全部 8 块的总和" in steps[-1].sentence


def test_the_comparison_table_reads_both_runs() -> None:
    rows = comparison_rows(_view("one_f_one_b", "without"), _view("one_f_one_b", "with"), "en")
    table = {r.label: (r.without, r.with_) for r in rows}
    assert table["Pipeline idle share (%)"] == ("27.3", "27.3")
    assert table["Most micro-batches GPU 0 holds at once"] == ("8", "4")
    assert table["Fits in 80 GB?"] == ("no", "yes")


def test_the_walkthrough_reads_the_sim_stages_runs() -> None:
    plan = parse_plan(_training_plan())
    concept = plan.concept("one_f_one_b")
    assert concept is not None
    runs = {Run("one_f_one_b", v, field="training") for v in VARIANTS}
    sim = SimResults({r.key: TRAINING.run(r) for r in runs})
    told = fields.walkthrough(plan, concept, sim, "en")
    assert told is not None and len(told[0]) == 12 and told[1]
    assert fields.walkthrough(plan, concept, SimResults({}), "en") is None


# ---- a training folder ------------------------------------------------------------------------

ARTICLES = {
    "01-why-many-gpus.md": (
        "# Why one GPU is not enough\n\nTraining keeps the weights, the gradients and the "
        "optimizer states of every parameter, and the activations of every layer until the "
        "backward pass needs them. For a model of billions of parameters that is more memory "
        "than one GPU has, so the work is split over many GPUs.\n"
    ),
    "02-pipelines.md": (
        "# Pipelines and their bubbles\n\nA pipeline gives each GPU a slice of the layers. "
        "Micro-batches keep the slices busy at once; the idle time at the start and the end "
        "is the bubble. The 1F1B schedule starts each backward early and holds fewer "
        "activations.\n"
    ),
    "reading-list.md": (
        "# Reading list\n\n"
        "- [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models]"
        "(https://arxiv.org/abs/1910.02054)\n"
        "- [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM]"
        "(https://arxiv.org/abs/2104.04473)\n"
        "- [Reducing Activation Recomputation in Large Transformer Models]"
        "(https://arxiv.org/abs/2205.05198)\n"
    ),
}


def _panel(caption: str, scene: str, scenario: str, variant: str) -> dict[str, Any]:
    return {"caption": caption, "scene": scene, "scenario": scenario, "variant": variant}


def _card(cid: str, name: str, before: str | None, scene: str, scenario: str, trouble: str,
          fix: str, technique: str | None = None) -> dict[str, Any]:
    return {
        "id": cid, "field": "training", "name": name, "name_en": name,
        "solves_problem_of": before, "problem_left": f"{name} leaves a cost",
        "body": f"{name} in one sentence.",
        "trouble": _panel(trouble, scene, scenario, "without"),
        "fix": _panel(fix, scene, scenario, "with"),
        "solves": f"what {name} solves", "costs": f"what {name} costs",
        "terms": ["micro-batch"], "technique": technique,
    }


TRAINING_PLAN: dict[str, Any] = {
    "lang": "en",
    "title": "Training on many GPUs",
    "takeaway": "Training splits the model and its memory over many GPUs, and each split costs "
                "idle time or communication.",
    "main_thread": {"sentence": "Every step runs forward, backward and an update on many GPUs.",
                    "kind": "pipeline",
                    "stages": [{"label": "forward"}, {"label": "backward"}, {"label": "sync"},
                               {"label": "update"}]},
    "cast": [{"id": "G", "role": "a GPU: the chip with a face", "state": "running"},
             {"id": "M", "role": "a micro-batch: a numbered bean", "state": "new"}],
    "glossary": [{"term": "micro-batch", "definition": "A slice of the batch a GPU works on."},
                 {"term": "MFU", "definition": "The share of the GPUs' peak arithmetic spent on the "
                  "model."}],
    "concepts": [
        _card("tensor_split", "Tensor parallelism", None, "memory", "tensor_split",
              "{peak_gb} GB on one GPU", "{peak_gb} GB on each GPU", "more_tp"),
        _card("zero", "ZeRO", "tensor_split", "memory", "zero_sharding",
              "{peak_gb} GB per GPU", "{peak_gb} GB per GPU", "zero_1"),
        _card("recompute", "Recomputation", "zero", "memory", "recompute",
              "{peak_gb} GB of memory", "{peak_gb} GB of memory", "full_recompute"),
        _card("pipeline", "Pipelines", "tensor_split", "pipeline", "pipeline_bubble",
              "idle {bubble_pct}% of the time", "idle {bubble_pct}% of the time"),
        _card("one_f_one_b", "1F1B", "pipeline", "pipeline", "one_f_one_b",
              "the first GPU holds {rank0.held}", "the first GPU holds {rank0.held}",
              "one_f_one_b"),
        _card("interleaving", "Interleaving", "pipeline", "pipeline", "interleaving",
              "idle {bubble_pct}%", "idle {bubble_pct}%", "interleaving"),
        _card("grad_sync", "Overlapped sync", "zero", "step_bar", "grad_sync",
              "one step: {step_time} s", "one step: {step_time} s", "comm_overlap"),
        _card("scaling", "Scaling out", "grad_sync", "scaling", "scaling",
              "MFU {mfu_pct}% on the most GPUs", "MFU {mfu_pct}% on the most GPUs"),
    ],
    "ruler": {"sentence": "What each technique buys and what it costs.",
              "metrics": [
                  {"id": "memory", "name": "memory", "better": "lower",
                   "definition": "The fullest GPU's memory."},
                  {"id": "step_time", "name": "step time", "better": "lower",
                   "definition": "One optimizer step."},
                  {"id": "mfu", "name": "MFU", "better": "higher",
                   "definition": "Model FLOPs done over the GPUs' peak."}]},
    "walkthrough": {"concept": "one_f_one_b", "intro": "The 1F1B schedule, action by action."},
    "route": [
        {"title": "ZeRO", "url": "https://arxiv.org/abs/1910.02054", "why": "Sharded states."},
        {"title": "Megatron-LM", "url": "https://arxiv.org/abs/2104.04473",
         "why": "Pipelines and interleaving."},
        {"title": "Recomputation", "url": "https://arxiv.org/abs/2205.05198",
         "why": "Activation memory."},
    ],
    "meta": {"made_by": "hand-reviewed", "date": "2026-12-01"},
}


def _folder(tmp_path: Path, plan: dict[str, Any]) -> Path:
    folder = tmp_path / "training-notes"
    folder.mkdir()
    for name, text in ARTICLES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "page.toml").write_text('title = "Training on many GPUs"\nlang = "en"\n',
                                      encoding="utf-8")
    (folder / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    return folder


def test_a_training_plan_validates(tmp_path: Path) -> None:
    assert _violations(_training_plan()) == []
    folder = _folder(tmp_path, _training_plan())
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "valid (8 concepts, 3 route stops)" in r.stdout


def test_a_training_plan_that_draws_a_serving_scenario_is_refused_with_its_path(
    tmp_path: Path,
) -> None:
    data = _training_plan()
    data["concepts"][3]["trouble"].update(scenario="batching", caption="the GPUs idle")
    found = _violations(data)
    assert any(v.startswith("concepts[3].trouble.scenario: scenario 'batching' is the serving "
                            "field's, and this concept is a training concept") for v in found)
    folder = _folder(tmp_path, data)
    r = tujie("validate", str(folder), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert "concepts[3].trouble.scenario" in r.stderr and "serving field's" in r.stderr
    data = _training_plan()  # a serving scene for a training concept: refused at its scene
    data["concepts"][3]["fix"]["scene"] = "timeline"
    assert any(v.startswith("concepts[3].fix.scene: the 'timeline' scene is the serving field's")
               for v in _violations(data))


def test_a_pair_the_catalogue_forbids_is_refused_by_the_validator() -> None:
    data = _training_plan()
    data["concepts"][2]["fix"]["scene"] = "ring"  # recompute has no data-parallel ring to draw
    assert _violations(data) == [
        "concepts[2].fix.scene: a 'ring' scene cannot draw scenario 'recompute' (drawn by: "
        f"{', '.join(DRAWN_BY['recompute'])})"
    ]


def test_a_memory_trouble_that_fits_is_refused_with_its_path() -> None:
    """Reader hf3: a played model drew FSDP's trouble as ZeRO's fix, a bar that fits; the
    reader asked why FSDP was needed. A memory trouble shows its trouble over the line."""
    data = _training_plan()
    assert [v for v in _page_violations(data) if ".trouble:" in v] == []
    data["concepts"][1]["trouble"]["variant"] = "with"  # ZeRO's fixed state: it fits
    found = _page_violations(data)
    assert [v for v in found if v.startswith("concepts[1].trouble:")] == [
        "concepts[1].trouble: this memory picture fits on every GPU (78.8 of 80 GB): a trouble "
        "panel drawn as memory shows its trouble by going over the line; draw a run that does "
        "not fit (the state before the fix, fewer GPUs, a lower ZeRO stage), or a scene that "
        "draws what goes wrong"]


def test_two_pipelines_of_one_card_run_the_same_number_of_micro_batches() -> None:
    """Reader hf3: GPipe with 4 micro-batches against interleaving with 8 changes two things;
    the knob that equalises them clears the refusal."""
    data = _training_plan()
    data["concepts"][5]["trouble"].update(scenario="pipeline_bubble", variant="with")
    data["concepts"][5]["fix"]["knobs"] = [{"name": "microbatches", "value": 8}]
    data["concepts"][5]["trouble"]["caption"] = "idle {bubble_pct}%"
    found = [v for v in _page_violations(data) if v.startswith("concepts[5].fix:")]
    assert found == [
        "concepts[5].fix: the trouble's pipeline runs 4 micro-batches and the fix's 8: the card "
        "compares two changes at once; set the 'microbatches' knob so both panels run the same "
        "number"]
    data["concepts"][5]["fix"]["knobs"] = [{"name": "microbatches", "value": 4}]
    assert [v for v in _page_violations(data) if v.startswith("concepts[5].fix:")] == []


def test_a_pipeline_card_compares_neighbouring_schedules() -> None:
    """Reader hf6: GPipe against interleaved 1F1B skips 1F1B, two changes in one card (the
    reader saw less memory where the words promised more); a 1F1B trouble clears it."""
    data = _training_plan()
    assert data["concepts"][5]["fix"]["scenario"] == "interleaving"
    data["concepts"][5]["trouble"].update(scenario="pipeline_bubble", variant="with",
                                          caption="idle {bubble_pct}%")
    data["concepts"][5]["fix"]["knobs"] = [{"name": "microbatches", "value": 4}]
    found = [v for v in _page_violations(data) if v.startswith("concepts[5].trouble:")]
    assert found == [
        "concepts[5].trouble: the trouble runs GPipe and the fix interleaved 1F1B: two changes "
        "at once (the schedule, then the interleaving); draw the trouble from the scenario one "
        "step before the fix (interleaving's without variant is 1F1B, one_f_one_b's with "
        "variant too)"]
    data["concepts"][5]["trouble"].update(scenario="one_f_one_b", variant="with",
                                          knobs=[{"name": "microbatches", "value": 4}])
    assert [v for v in _page_violations(data) if v.startswith("concepts[5].trouble:")] == []


def _page_violations(data: dict[str, Any]) -> list[str]:
    """Every rule, the ones read from the runs included (`page_violations`)."""
    from pipeline.simulate.checks import page_violations

    return [str(v) for v in page_violations(parse_plan(data))[0]]


def test_fewer_gpus_give_a_card_after_zero_1_a_trouble_that_does_not_fit() -> None:
    """Reader hf4: FSDP's card after a ZeRO-1 card that fits had no honest trouble (the played
    model repeated plain DP's). On 4 GPUs (knob `gpus`) ZeRO-1 overflows and ZeRO-3 fits, so
    the card can draw the stage before against its own, and the validator accepts it."""
    data = _training_plan()
    four = [{"name": "gpus", "value": 4}]
    data["concepts"][1]["trouble"].update(variant="with", knobs=[*four, {"name": "zero",
                                                                      "value": 1}])
    data["concepts"][1]["fix"]["knobs"] = [*four, {"name": "zero", "value": 3}]
    assert [v for v in _page_violations(data) if v.startswith("concepts[1].")] == []
    sim = run_sim(parse_plan(data))
    plan = parse_plan(data)
    views = [fields.run_view(plan, plan.concepts[1], p, sim)
             for p in (plan.concepts[1].trouble, plan.concepts[1].fix)]
    assert [v.gpus for v in views] == [4, 4]
    assert [all(r.fits for r in v.memory) for v in views] == [False, True]
