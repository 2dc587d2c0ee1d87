"""The training field's scenes (issue 24, deliverable 3): every scene x scenario pair the
catalogue allows renders cleanly in both languages with each knob at either end of its range,
a pair it forbids is refused; goldens for each scene kind (`golden/training/`, both variants)
and for the walkthrough's strips; identical SVG on every draw; words readable on a phone; every
number a panel writes is one of its run's; random captions fit or are refused by name.
"""

from __future__ import annotations

import dataclasses
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import fields
from pipeline.artifacts.sim import SimResults
from pipeline.draw import FitError
from pipeline.draw.panel import draw_panel
from pipeline.draw.scene import MIN_PHONE_PX, PHONE_PANEL_PX
from pipeline.errors import InputError
from pipeline.fields.base import Run
from pipeline.fields.training import FIELD as TRAINING
from pipeline.fields.training import walk_steps
from pipeline.fields.training.catalogue import DRAWN_BY, SCENE_SHOWS
from pipeline.fields.training.showcase import panel_svg, run_view, sample_concept
from pipeline.fields.training.view import TrainingView
from pipeline.plan.model import Concept, Panel
from sim.presets.training import SCENARIOS
from tests.draw.test_layout_props import _text, assert_clean, inherited

GOLDEN = Path(__file__).parent / "golden" / "training"
UPDATE = os.environ.get("TUJIE_UPDATE_GOLDEN") == "1"
NS = "{http://www.w3.org/2000/svg}"
VARIANTS = ("without", "with")
PAIRS = [(sid, scene) for sid, scenes in DRAWN_BY.items() for scene in scenes]
# scene kind -> the scenario its golden files are drawn from (both variants)
GOLDEN_CASES = [("pipeline", "one_f_one_b"), ("pipeline", "interleaving"),
                ("division", "tensor_recompute"),
                ("memory", "zero_sharding"), ("ring", "grad_sync"), ("step_bar", "grad_sync"),
                ("scaling", "scaling")]
ALLOWED_COLOURS = re.compile(
    r'(?:fill|stroke)="(?!none"|var\(--(?:ink|paper|run|new|stored|freed|idle|faint|'
    r'(?:run|new|stored|freed|idle)-tint|bean-ink)\)")'
)


def _check_golden(name: str, svg: str) -> None:
    path = GOLDEN / f"{name}.svg"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"golden {path.name} missing: run with TUJIE_UPDATE_GOLDEN=1")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg + "\n", encoding="utf-8")
    assert svg + "\n" == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def _concept(panel: Panel) -> Concept:
    return Concept(id="pair", field="training", name="配对", name_en="Pair", problem_left="-",
                   body="-", trouble=panel, fix=panel, solves="-", costs="-")


def _draw(sid: str, scene: str, variant: str, lang: str, knobs: dict[str, float],
          caption: str = "{gpus}") -> str:
    view, values = run_view(sid, variant, tuple(sorted(knobs.items())))
    panel = Panel.model_validate({"caption": caption, "scene": scene, "scenario": sid,
                                  "variant": variant,
                                  "knobs": [{"name": k, "value": v} for k, v in knobs.items()]})
    return draw_panel(_concept(panel), "fix", panel, view, values, lang=lang,
                      scene=TRAINING.scenes()[scene])


def test_every_scene_kind_draws_a_scenario_and_there_are_five() -> None:
    assert set(TRAINING.scenes()) == set(SCENE_SHOWS)
    assert len(SCENE_SHOWS) >= 5
    drawn = {scene for scenes in DRAWN_BY.values() for scene in scenes}
    assert drawn == set(SCENE_SHOWS) and set(DRAWN_BY) == set(SCENARIOS)


@pytest.mark.parametrize(("sid", "scene"), PAIRS)
def test_every_pair_the_catalogue_allows_renders_clean(sid: str, scene: str) -> None:
    """Both variants, both languages, the preset and each knob at either end of its range."""
    settings_: list[dict[str, float]] = [{}]
    settings_ += [{k.id: end} for k in SCENARIOS[sid].knobs for end in (k.low, k.high)]
    for knobs in settings_:
        for variant in VARIANTS:
            for lang in ("zh", "en"):
                try:
                    svg = _draw(sid, scene, variant, lang, knobs)
                except InputError as err:  # a knob value the engine refuses (pp 3 of 32 layers)
                    pytest.fail(f"{sid}/{variant} {scene} {knobs}: {err}")
                assert svg.startswith("<svg") and 'data-panel="pair/fix"' in svg
                assert_clean(svg)
                assert ("示意值" if lang == "zh" else "illustrative") in svg


@pytest.mark.parametrize(("scene", "sid"), [("pipeline", "zero_sharding"), ("ring", "recompute"),
                                            ("scaling", "grad_sync"), ("memory", "scaling")])
def test_a_pair_the_catalogue_forbids_is_refused_by_the_renderer(scene: str, sid: str) -> None:
    assert scene not in DRAWN_BY[sid]
    panel = Panel(caption="x", scene=scene, scenario=sid, variant="with")
    concept = _concept(panel)
    run = TRAINING.panel_run(None, panel)  # type: ignore[arg-type]  # the plan is not read
    assert run is not None
    sim = SimResults({run.key: TRAINING.run(run)})
    with pytest.raises(InputError, match=f"a '{scene}' scene cannot draw scenario '{sid}'"):
        fields.draw_panel_of(None, concept, "fix", panel, sim, lang="zh")  # type: ignore[arg-type]


@pytest.mark.parametrize(("scene", "sid"), GOLDEN_CASES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_scene_matches_golden(scene: str, sid: str, variant: str) -> None:
    _check_golden(f"{scene}--{sid}--{variant}", panel_svg(sid, scene, variant, "zh"))


def test_english_panels_and_strips_match_golden() -> None:
    _check_golden("memory--recompute--without--en", panel_svg("recompute", "memory", "without",
                                                               "en"))
    for sid in ("one_f_one_b", "grad_sync"):
        view, _values = run_view(sid, "with")
        steps = walk_steps(view, "en")
        _check_golden(f"strip--{sid}--2", steps[1].strip)


def test_same_input_gives_identical_svg() -> None:
    for scene, sid in GOLDEN_CASES:
        assert panel_svg(sid, scene, "with", "en") == panel_svg(sid, scene, "with", "en")


@pytest.mark.parametrize(("sid", "scene"), PAIRS)
def test_words_stay_readable_on_a_phone(sid: str, scene: str) -> None:
    """At the phone's 327 px panel every word, even shrunk to its floor, is >= 11 px; colours
    are only the theme's variables."""
    scale = PHONE_PANEL_PX / 400
    for lang in ("zh", "en"):
        for variant in VARIANTS:
            svg = panel_svg(sid, scene, variant, lang)
            assert not ALLOWED_COLOURS.search(svg)
            root = ET.fromstring(svg)
            parents = {c: p for p in root.iter() for c in p}
            texts = list(root.iter(f"{NS}text"))
            assert len(texts) >= 4
            for t in texts:
                size = float(inherited(t, "font-size", parents, "0")) * float(
                    t.get("data-floor") or 1.0)
                assert size * scale >= MIN_PHONE_PX, (sid, scene, lang, t.get("id"))


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _run_numbers(view: TrainingView, values: dict[str, str]) -> set[str]:
    """Every number a panel of this run may write: its caption values, the run's shape, what
    the scenes compute from it (ring steps, 1/n, micro-batch and GPU numbers, the MFU axis)."""
    out = set(values.values())
    out |= {str(i) for i in range(0, max(view.microbatches, view.gpus, 16) + 2)}
    out |= {"16", "50", "60", "25", "30", "20", "40", "45", "10", "5"}  # MFU axis marks
    for p in (*view.points, *view.other_points):
        out |= {str(p.gpus), str(p.global_batch), str(p.global_batch // p.gpus)}
    for c in view.collectives:
        out |= {str(c.group), str(2 * (c.group - 1)), str(c.group - 1)}
    if view.layers:  # a pipeline GPU's share of the model's layers, and each chunk's bounds
        out |= {str(view.layers), str(view.layers // max(view.pp, 1))}
        per = view.layers // (view.pp * view.virtual_stages)
        out |= {str(k * per + d) for k in range(view.pp * view.virtual_stages) for d in (0, 1)}
    per_copy = max(1, view.global_batch // view.dp)  # the sequences each copy trains on
    out |= {str(c * per_copy + d) for c in range(view.dp + 1) for d in (0, 1)}
    return out


@pytest.mark.parametrize(("sid", "scene"), PAIRS)
def test_every_number_a_panel_writes_is_its_runs(sid: str, scene: str) -> None:
    from pipeline.fields.training.values import gb, number, seconds

    for variant in VARIANTS:
        view, values = run_view(sid, variant)
        known = _run_numbers(view, values)
        for m in view.memory:  # the memory scene's per-part sizes, as the desc writes them
            known |= {gb(m.params + m.buffers), gb(m.total), gb(m.activations),
                      number(m.held / view.virtual_stages)}  # interleaved: whole micro-batches
        step = view.step
        hidden = max(0.0, step.comm_total - step.exposed_comm)
        known |= {seconds(hidden), number(hidden), number(1000 * step.comm_total)}
        ring = view.collective("dp") or view.collective("fsdp")
        if ring is not None:
            known |= {number(1000 * ring.time), number(ring.bytes / 1e9)}
        svg = panel_svg(sid, scene, variant, "en")
        root = ET.fromstring(svg)
        for t in root.iter(f"{NS}text"):
            spans = t.findall(f"{NS}tspan")
            for text in [s.text or "" for s in spans] if spans else [t.text or ""]:
                for found in NUMBER.findall(text):
                    assert found in known, f"{sid}/{variant} {scene}: {found!r} in {text!r}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lang=st.sampled_from(["zh", "en"]), data=st.data())
def test_random_captions_fit_or_are_refused_by_name(lang: str, data: st.DataObject) -> None:
    sid, scene = data.draw(st.sampled_from(PAIRS))
    variant = data.draw(st.sampled_from(VARIANTS))
    caption = data.draw(_text(lang, 15 if lang == "zh" else 40))
    try:
        svg = _draw(sid, scene, variant, lang, {}, caption=caption)
    except FitError as err:
        assert str(err).startswith("card pair, panel fix: ")
        return
    assert_clean(svg)


def test_sample_captions_fill_from_the_run() -> None:
    concept = sample_concept("one_f_one_b", "pipeline", "en")
    view = TrainingView.from_json(TRAINING.run(Run("one_f_one_b", "with", field="training")))
    svg = panel_svg("one_f_one_b", "pipeline", "with", "en")
    assert concept.fix.caption == "the first GPU holds {rank0.held} of them"
    assert f"the first GPU holds {view.memory[0].held} of them" in svg


@pytest.mark.parametrize(("sid", "variant", "ways"), [
    ("zero_sharding", "without", set()),  # plain data parallelism: every state whole
    ("zero_sharding", "with", {8}),  # ZeRO-3 over 8: weights, grads, optimizer, one bracket
    ("tensor_split", "without", set()),  # one GPU
    ("tensor_split", "with", {4}),  # tensor parallel 4
])
def test_a_memory_bar_brackets_the_states_its_run_splits(sid: str, variant: str,
                                                         ways: set[int]) -> None:
    """The sharding is drawn, not only its total: each run of model states split the same way
    is bracketed with how many ways, from the run's ZeRO stage, data- and tensor-parallel
    degrees."""
    from pipeline.fields.training.scenes.memory import split_ways

    view, _values = run_view(sid, variant)
    drawn = {int(m) for m in re.findall(r"split (\d+) ways", panel_svg(sid, "memory", variant,
                                                                        "en"))}
    assert drawn == ways
    assert drawn == {w for w in split_ways(view).values() if w > 1}
    zh = panel_svg(sid, "memory", variant, "zh")
    assert {int(m) for m in re.findall(r"(\d+) 张分摊", zh)} == ways


def test_zero_stages_split_optimizer_then_grads_then_weights() -> None:
    from pipeline.fields.training.scenes.memory import split_ways

    view, _values = run_view("zero_sharding", "with")
    for stage, split in ((0, set()), (1, {"optimizer"}), (2, {"optimizer", "grads"}),
                         (3, {"optimizer", "grads", "params"})):
        staged = dataclasses.replace(view, zero=stage, tp=1)
        assert {p for p, w in split_ways(staged).items() if w > 1} == split, stage
        assert all(w == view.dp for p, w in split_ways(staged).items() if p in split)


def test_a_step_of_micro_batches_cuts_its_compute_into_numbered_pieces() -> None:
    """Gradient accumulation is drawn, not only told: the step bar of a run with m micro-batches
    numbers m pieces of its compute (the hidden all-reduce then sits under the last one); one
    micro-batch has no pieces."""
    for m in (1, 4, 8):
        view, _values = run_view("grad_sync", "with", (("microbatches", float(m)),))
        assert view.microbatches == m
        svg = _draw("grad_sync", "step_bar", "with", "en", {"microbatches": m})
        root = ET.fromstring(svg)
        digits = [s.text for t in root.iter(f"{NS}text") if t.get("data-role") != "caption"
                  for s in [t, *t.findall(f"{NS}tspan")] if (s.text or "").isdigit()]
        assert digits == ([str(k) for k in range(1, m + 1)] if m > 1 else []), m


def test_zero_3s_missing_bf16_gradients_are_explained_not_zeroed() -> None:
    """Under ZeRO-3 (DeepSpeed's accounting) no bf16 gradients are kept: they are
    reduce-scattered into the fp32 shard counted with the optimizer. A reader took the bare
    "gradients 0" for gradients vanishing."""
    for lang, said in (("en", "gradients 0 in bf16 (only their fp32 shard, 4 GB, counted with "
                               "the optimizer)"), ("zh", "只剩 fp32 的那一份 4 GB，算在优化器里")):
        desc = _draw("zero_sharding", "memory", "with", lang, {"zero": 3})
        assert said in desc, desc[desc.find("<desc"):][:400]
    assert "only their fp32" not in _draw("zero_sharding", "memory", "with", "en", {"zero": 2})


def _two_scenarios(scene: str, trouble: tuple[str, str], fix: tuple[str, str]) -> Concept:
    """A card whose two panels draw `scene` from two (scenario, variant) runs."""
    trouble_panel, fix_panel = (
        Panel.model_validate({"caption": "{gpus}", "scene": scene, "scenario": sid,
                              "variant": variant}) for sid, variant in (trouble, fix))
    return Concept(id="pair", field="training", name="配对", name_en="Pair", problem_left="-",
                   body="-", trouble=trouble_panel, fix=fix_panel, solves="-", costs="-")


def test_two_pictures_of_different_runs_in_one_scene_share_one_scale() -> None:
    """A card whose trouble and fix draw two scenarios in one scene (a played model drew naive
    pipelining's memory against plain data parallelism's, and GPipe against interleaving) draws
    both at one scale, the larger of the two runs it shows: beside a fuller partner the HBM
    line sits lower than alone, and a pipeline beside a longer one is drawn shorter."""
    view, values = run_view("pipeline_bubble", "without")
    fuller, _ = run_view("zero_sharding", "without")
    assert fuller.peak.total > max(view.pair_peak, view.hbm)
    card = _two_scenarios("memory", ("zero_sharding", "without"), ("pipeline_bubble", "without"))
    mine = card.fix

    def hbm_y(partner: object) -> float:
        svg = draw_panel(card, "fix", mine, view, values, lang="en",
                         scene=TRAINING.scenes()["memory"], partner=partner)
        (y,) = [float(t.get("y") or 0) for t in ET.fromstring(svg).iter(f"{NS}text")
                if (t.text or "").startswith("HBM")]
        return y

    assert hbm_y(fuller) > hbm_y(None) + 5
    assert TRAINING.cross_partner("pipeline") and not TRAINING.cross_partner("ring")
    # both panels of a GPipe-against-interleaving card draw to one span: the longer of the two
    # runs drawn, not each scenario's own pair (GPipe's includes its undrawn one-batch twin)
    from pipeline.draw.scene import SceneContext
    from pipeline.fields.training.scenes.common import card_extent

    gp, _ = run_view("pipeline_bubble", "with")
    inter, _ = run_view("interleaving", "with")
    pp = _two_scenarios("pipeline", ("pipeline_bubble", "with"), ("interleaving", "with"))
    a, b = pp.trouble, pp.fix
    spans = [card_extent(SceneContext(pp, side, panel, run, "en", partner=other), run.pair_span,
                         lambda v: v.span)
             for side, panel, run, other in (("trouble", a, gp, inter), ("fix", b, inter, gp))]
    assert spans == [max(gp.span, inter.span)] * 2 and gp.pair_span not in spans
    same = _concept(a)
    assert card_extent(SceneContext(same, "fix", a, gp, "en", partner=gp), gp.pair_span,
                       lambda v: v.span) == gp.pair_span


def test_tensor_parallel_waits_are_drawn_inside_the_step_not_at_its_end() -> None:
    """Tensor parallelism's all-reduces sit in every layer: its exposed wait is drawn after
    each micro-batch's compute (8 slivers, each before the next piece starts), never as one
    block after all the compute like a gradient all-reduce (reader tr10)."""
    def waits(variant: str) -> list[float]:
        svg = _draw("tensor_recompute", "step_bar", variant, "en", {})
        return [float(x) for x in re.findall(
            r'<path d="M([\d.]+) 124[hH][^"]*" fill="var\(--ink\)" fill-opacity="0.8"', svg)]

    view, _ = run_view("tensor_recompute", "with")
    assert view.tp > 1 and view.step.exposed["tp"] > 0 and view.microbatches >= 2
    xs = waits("with")
    assert len(xs) == view.microbatches
    gaps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
    assert min(gaps) > 20  # compute between every two waits
    assert waits("without") == []  # no tensor parallelism, nothing exposed


def test_a_tensor_parallel_step_draws_the_gpus_that_share_each_layer() -> None:
    """Reader tr-r4: the tensor-parallel fix was one GPU's bar, the split nowhere drawn. A step
    of a run with tp > 1 stacks tp chips (up to 4) and says they split each layer; tp = 1 draws
    one chip and says nothing of it."""
    for variant, tp in (("without", 1), ("with", 2)):
        view, _values = run_view("tensor_recompute", variant)
        assert view.tp == tp
        svg = _draw("tensor_recompute", "step_bar", variant, "en", {})
        chips = len(re.findall(r'<use [^>]*href="#[^"]*gpu-(?:busy|idle)', svg))
        assert chips == tp, variant
        assert ("2 GPUs split each layer" in svg) == (tp == 2), variant


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    out = []
    for t in root.iter(f"{NS}text"):
        if t.get("data-role") == "caption":
            continue
        spans = t.findall(f"{NS}tspan")
        out += [s.text or "" for s in spans] if spans else [t.text or ""]
    return out


def test_division_tells_copies_from_a_split_layer() -> None:
    """Data parallelism's copies train on different sequences; the GPUs that split a layer
    (tensor parallelism) train on the same ones, each holding its own part of every layer."""
    texts = _texts(_draw("tensor_recompute", "division", "with", "en", {}))
    assert ["copy 1", "copy 2"] == [t for t in texts if t.startswith("copy")]
    assert [t for t in texts if t.startswith("seq")] == ["seq 1-16", "seq 17-32"]  # 64 / 4 copies
    assert [t for t in texts if t.startswith("GPU")] == ["GPU 0", "GPU 1", "GPU 2", "GPU 3"]
    assert "+2 more copies" in " ".join(texts)  # on one line or two  # the other two of the four copies
    assert "a layer's 2 GPUs add up their parts: 4 all-reduces a layer, on NVLink" in texts
    assert any(t.startswith("the 4 copies all-reduce their gradients: 8 GB") for t in texts)
    one = _texts(_draw("tensor_recompute", "division", "without", "en", {}))
    assert [t for t in one if t.startswith("seq")] == ["seq 1-8", "seq 9-16", "seq 17-24", "seq 25-32"]
    assert "+4 more copies" in " ".join(one)  # eight copies of one GPU each


def test_division_marks_a_gpu_that_cannot_hold_its_share() -> None:
    """One GPU holding all of Llama-3-8B's training state is over its 80 GB: the box is dashed
    red and the band says by how much; split four ways it fits and nothing is dashed."""
    alone = _draw("tensor_split", "division", "without", "en", {})
    assert "stroke-dasharray" in alone
    assert any(t.startswith("dashed red:") and "over its 80 GB" in t for t in _texts(alone))
    split = _draw("tensor_split", "division", "with", "en", {})
    assert "stroke-dasharray" not in split
    assert "a layer's 4 GPUs add up their parts: 4 all-reduces a layer, on NVLink" in _texts(split)


def test_division_shows_where_a_layers_all_reduces_run() -> None:
    """3D parallelism: a layer split 16 ways spans two nodes and its all-reduces cross the
    network; split 8 ways inside a node with the layers cut into two stages, they stay on
    NVLink and only the stages' activations cross. The step is the run's: 18.8 s vs 5.02 s."""
    across = _texts(_draw("three_d", "division", "without", "en", {}))
    assert "copy 1, 2 nodes" in across
    assert "a layer's 16 GPUs add up their parts: 4 all-reduces a layer, over the network" in across
    inside = _texts(_draw("three_d", "division", "with", "en", {}))
    heads = " ".join(inside)  # the boxes are copy 1's two stages, the copies said
    assert "copy 1 of 4: layers 1-40" in heads and "copy 1 of 4: layers 41-80" in heads
    assert "a layer's 8 GPUs add up their parts: 4 all-reduces a layer, on NVLink" in inside
    assert any(t.startswith("arrows:") and t.endswith("over the network") for t in inside)
    steps = [run_view("three_d", v)[1]["step_time"] for v in VARIANTS]
    assert steps == ["18.8", "5.02"]


def test_division_names_each_pipeline_gpus_layers() -> None:
    """A pipeline's boxes are its stages, left to right, with the layers each holds: one run
    of 8 in 1F1B, two runs of 4 when interleaved (GPU k holds chunks k and k + 4)."""
    plain = _texts(_draw("interleaving", "division", "without", "en", {}))
    assert [t for t in plain if t.startswith("layers")] == [
        "layers 1-8", "layers 9-16", "layers 17-24", "layers 25-32"]
    mixed = "".join(_texts(_draw("interleaving", "division", "with", "zh", {}))).replace(" ", "")
    assert "第1-4、17-20层" in mixed and "第13-16、29-32层" in mixed  # wrapped on narrow boxes


@pytest.mark.parametrize("sid", ["pipeline_bubble", "one_f_one_b", "interleaving"])
def test_a_lanes_blocks_of_one_kind_are_all_numbered_or_none(sid: str) -> None:
    """A lane that numbered some forwards and not others ("1 3 4") read as a micro-batch gone
    missing (reader tr-r5): per lane, every forward has its number or none does, and the same
    for the backwards; the numbers never touch."""
    from pipeline import fonts
    from pipeline.draw.scene import SMALL_SIZE
    from pipeline.fields.training.scenes.pipeline import LANE_X0, LANE_X1, lane_labels

    numbered_any = False
    for knobs in [{}] + [{k.id: end} for k in SCENARIOS[sid].knobs for end in (k.low, k.high)]:
        for variant in VARIANTS:
            view, _ = run_view(sid, variant, tuple(sorted(knobs.items())))
            scale = (LANE_X1 - LANE_X0) / view.pair_span
            for actions in view.timeline:
                labels = lane_labels(actions, scale)
                xs = {round(x, 3) for _, x in labels}
                for kind in ("F", "B"):
                    mine = [round(LANE_X0 + (a.start + a.end) / 2 * scale, 3)
                            for a in actions if a.kind == kind]
                    inside = [x in xs for x in mine]
                    assert all(inside) or not any(inside), (sid, variant, knobs, kind)
                numbered_any |= bool(labels)
                widths = [fonts.measure(t, fonts.HAND_EN, SMALL_SIZE) for t, _ in labels]
                for (_, a), (_, b), wa, wb in zip(labels, labels[1:], widths, widths[1:],
                                                  strict=False):
                    assert b - a >= (wa + wb) / 2, (sid, variant, knobs)
    assert numbered_any  # the check has something to check


def test_one_batch_of_several_sequences_is_held_in_sequences() -> None:
    """Reader hf6 took "holds 1" (one batch of 4 sequences) against "holds 4" (four
    micro-batches of one) for four times the memory: a micro-batch of several sequences is
    counted in sequences, so the first GPU holds 4 either way."""
    one = _texts(_draw("pipeline_bubble", "pipeline", "without", "en", {}))
    split = _texts(_draw("pipeline_bubble", "pipeline", "with", "en", {}))
    assert [t for t in one if t.startswith("holds")][0] == "holds 4 seq"
    assert [t for t in split if t.startswith("holds")][0] == "holds 4"
    assert "存 4 条" in _texts(_draw("pipeline_bubble", "pipeline", "without", "zh", {}))


def test_a_real_pipelines_table_gives_its_step_not_its_span() -> None:
    """Reader hf7: the 3D walkthrough's table said 'one step' 4.94 s beside the card's 5.02 s:
    a real run's step is its step time (the pipeline's span leaves out the gradient sum); a
    comic's span is its step."""
    from pipeline.fields.training.walkthrough import comparison_rows

    runs = [run_view("three_d", v)[0] for v in VARIANTS]
    rows = {r.label: (r.without, r.with_) for r in comparison_rows(*runs, "en")}
    assert rows["One step (s)"] == ("18.8", "5.02")
    assert rows["Pipeline idle share (%)"][0] == "0"
    comic = [run_view("one_f_one_b", v)[0] for v in VARIANTS]
    labels = [r.label for r in comparison_rows(*comic, "en")]
    assert labels[0].startswith("Span") or "time units" in labels[0], labels


def test_a_step_the_gpu_cannot_hold_says_it_is_timed_as_if_it_fit() -> None:
    """Played model hf8 drew a lone GPU's tokens/s for a run of 191.2 GB without a word: a
    step bar of a run over its HBM says so, in red, where its time is read; one that fits
    says nothing of the kind."""
    alone = _texts(_draw("tensor_split", "step_bar", "without", "en", {}))
    assert "needs 191.2 GB, over its HBM: timed as if it fit" in alone
    zh = _texts(_draw("tensor_split", "step_bar", "without", "zh", {}))
    assert "显存装不下（要 191.2 GB）：按装得下计时" in zh
    assert not [t for t in _texts(_draw("grad_sync", "step_bar", "with", "en", {}))
                if "timed as if" in t]


def test_zero_3s_missing_gradient_block_is_said_in_the_picture() -> None:
    """Readers hf6, hf7 and hf8 took ZeRO-3's missing bf16 gradient block for a drawing error
    (the reason was only in the alt text): the picture says there are none; ZeRO-2's does not."""
    assert "no bf16 grads" in _texts(_draw("zero_sharding", "memory", "with", "en", {"zero": 3}))
    assert "不存 bf16 梯度" in _texts(_draw("zero_sharding", "memory", "with", "zh", {"zero": 3}))
    assert "no bf16 grads" not in _texts(_draw("zero_sharding", "memory", "with", "en",
                                               {"zero": 2}))
