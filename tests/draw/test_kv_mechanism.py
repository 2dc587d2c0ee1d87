"""The KV-block pictures show their concept's mechanism (issue 21.2): a card's two panels on one
scenario show the same step on the same pool, the pool and block size are written, paging's
trouble shows the newcomer refused with the blocks it needs, preemption shows who is stuck and
when the victim is recomputed, and prefix caching draws a shared prefix block once."""

from __future__ import annotations

import re

import pytest

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.scenes.kv_blocks import pick_step, pool_cells
from pipeline.fields.serving.showcase import sample_concept
from sim.presets.scenarios import run_preset

SCENARIOS = ["kv_alloc", "preemption", "prefix_cache"]


def _trace(name: str) -> TraceView:
    return TraceView.from_json(run_preset(name, detail=True))


def _pair(scenario: str, lang: str = "zh") -> tuple[str, str]:
    concept = sample_concept(scenario, "kv_blocks", lang)
    without, with_ = _trace(f"{scenario}/without"), _trace(f"{scenario}/with")
    return (
        draw_panel(concept, "trouble", concept.trouble, without, trace_values(without),
                   lang=lang, partner=with_),
        draw_panel(concept, "fix", concept.fix, with_, trace_values(with_), lang=lang,
                   partner=without),
    )


def _texts(svg: str) -> str:
    return " ".join(re.findall(r">([^<>]+)</t", svg))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_both_panels_show_one_step_on_one_stated_pool(scenario: str) -> None:
    trouble, fix = _pair(scenario)
    heads = [re.search(r"第 (\d+) 步：共 (\d+) 块，每块 (\d+) 个 token", _texts(s)) for s in (trouble, fix)]
    assert heads[0] and heads[1], "the pool's size and block size head each picture"
    assert heads[0].groups() == heads[1].groups()


def test_paging_trouble_shows_the_newcomer_refused_with_the_blocks_it_needs() -> None:
    without, with_ = _trace("kv_alloc/without"), _trace("kv_alloc/with")
    step = pick_step(without, with_, ["D"])  # the card is about D: the step D is refused in
    assert "D" in step.waiting and "D" in with_.step(step.index).scheduled
    trouble, fix = _pair("kv_alloc")
    assert f"要 5 块，空 {step.free_blocks}" in _texts(trouble)
    assert step.free_blocks < 5
    assert "要 5 块" not in _texts(fix)


def test_preemption_shows_who_sits_out_the_victims_recompute_and_the_stall() -> None:
    trouble, fix = _pair("preemption")
    without = _trace("preemption/without")
    assert without.stalled
    stop = without.steps[-1].index + 1
    assert "卡住了" in _texts(trouble) and f"到第 {stop} 步全停" in _texts(trouble)
    with_ = _trace("preemption/with")
    step = pick_step(with_, without)
    assert step.preempted == ("D",)
    back = next(s.index for s in with_.steps if s.index > step.index and "D" in s.scheduled)
    assert f"第 {back} 步重算" in _texts(fix)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_drawn_pool_adds_up(scenario: str) -> None:
    """Every drawn block is one physical block: held + shown free never exceeds the pool, and a
    preemption's freed blocks are drawn where they lie free (not on top of the pool)."""
    for variant, other in (("without", "with"), ("with", "without")):
        trace, partner = _trace(f"{scenario}/{variant}"), _trace(f"{scenario}/{other}")
        step = pick_step(trace, partner)
        cells = pool_cells(trace, step, partner.step(step.index), trace.engine.block_size)
        held = [c for c in cells if c[1] not in ("free", "freed")]
        assert len(held) == trace.engine.num_blocks - step.free_blocks
        assert len(cells) - len(held) <= step.free_blocks


def test_prefix_caching_draws_the_shared_prefix_once_and_marks_the_copies_without_it() -> None:
    without, with_ = _trace("prefix_cache/without"), _trace("prefix_cache/with")
    step = pick_step(with_, without)
    (owners, n), = with_.step(step.index).shared
    assert n == 2 and set(owners) == {"A", "B", "C", "D"}
    fix_cells = pool_cells(with_, step, without.step(step.index), 4)
    assert [c[:4] for c in fix_cells if c[0] == "ABCD"] == [("ABCD", "stored", 4, 4)] * 2
    trouble_cells = pool_cells(without, without.step(step.index), step, 4)
    copies = [c[0] for c in trouble_cells if c[1] == "copy"]
    assert sorted(copies) == ["B", "B", "C", "C", "D", "D"]  # A computed it; the rest repeat it


def _tick_pitch(svg: str) -> float:
    """The distance between the step axis' ticks 1 and 2 (its tspans' x)."""
    xs = {t: float(x) for x, t in re.findall(r'<tspan x="([\d.]+)"[^>]*>(\d+)</tspan>', svg)}
    return xs["2"] - xs["1"]


def test_a_timeline_pair_shares_one_step_width() -> None:
    """Static batching runs longer than continuous batching: on one axis the shorter run ends
    visibly earlier instead of being stretched to the panel's width."""
    concept = sample_concept("batching", "timeline", "zh")
    without, with_ = _trace("batching/without"), _trace("batching/with")
    assert len(without.steps) > len(with_.steps)
    a = draw_panel(concept, "trouble", concept.trouble, without, trace_values(without), lang="zh",
                   partner=with_)
    b = draw_panel(concept, "fix", concept.fix, with_, trace_values(with_), lang="zh",
                   partner=without)
    alone = draw_panel(concept, "fix", concept.fix, with_, trace_values(with_), lang="zh")
    assert _tick_pitch(a) == pytest.approx(_tick_pitch(b))
    assert _tick_pitch(alone) > _tick_pitch(b)


def test_a_smaller_pool_shows_paging_run_short_where_reservation_makes_d_wait() -> None:
    """The kv_blocks knob sets one pool for both runs: with 9 blocks paged allocation runs out
    mid-answer (D preempted) while reservation keeps D out - the same step, the same pool."""
    knobs = {"kv_blocks": 9}
    paged = TraceView.from_json(run_preset("kv_alloc/with", detail=True, knobs=knobs))
    reserve = TraceView.from_json(run_preset("kv_alloc/without", detail=True, knobs=knobs))
    step = pick_step(paged, reserve)
    assert step.preempted == ("D",), "the first preemption in either run is the moment shown"
    assert pick_step(reserve, paged).index == step.index
    assert "D" in reserve.step(step.index).waiting
    assert paged.engine.num_blocks == reserve.engine.num_blocks == 9


@pytest.mark.parametrize("lang, word", [("zh", "全停"), ("en", "stuck")])
def test_a_stalled_timeline_draws_the_stall_after_its_last_step(lang: str, word: str) -> None:
    """A run that stalls ends in a column of its own: every unfinished lane idle, the axis saying
    nothing moves; a run that finishes has no such column."""
    stalled = _trace("preemption/without")
    done = _trace("preemption/with")
    concept = sample_concept("preemption", "timeline", lang)
    svg = draw_panel(concept, "trouble", concept.trouble, stalled, trace_values(stalled), lang=lang)
    axis = _texts(svg).split()
    assert axis[-1] == word and axis[-2] == str(len(stalled.steps))
    unfinished = [r for r, req in stalled.requests.items() if req.finish is None]
    assert unfinished
    # idle cells are one batched path, one closed outline per cell: the run's own idle cells
    # (B and D sit out steps 4-6) plus one per unfinished lane in the stall column
    idle = [m.group(1) for m in re.finditer(r'<path d="([^"]+)" stroke="var\(--idle\)" '
                                            r'stroke-width="1"', svg)]
    sat_out = sum(1 for s in stalled.steps for r in s.running if r not in s.scheduled)
    assert sum(d.count("Z") for d in idle) == sat_out + len(unfinished)
    fine = draw_panel(concept, "fix", concept.fix, done, trace_values(done), lang=lang)
    assert word not in _texts(fine).split()


def test_paged_blocks_lie_where_the_allocator_put_them_and_stay_there() -> None:
    """Paging's point: a request's blocks need not be neighbours. Drawn in pool order from the
    run's block tables, a block keeps its place from step to step (no re-packing), a request
    that grew holds blocks apart, and a preemption's freed blocks are drawn where they were."""
    trace = _trace("preemption/with")
    for step in trace.steps:
        cells = pool_cells(trace, step, None, 4)
        assert [c.pos for c in cells] == list(range(trace.engine.num_blocks))
        for rid, ids in step.block_table.items():
            assert all(rid in (cells[b].owner or "") for b in ids)
    evicted = next(s for s in trace.steps if s.preempted)
    before = trace.step(evicted.index - 1)
    assert before is not None
    cells = pool_cells(trace, evicted, None, 4)
    (victim,) = evicted.preempted
    for b in before.block_table[victim]:
        assert cells[b].kind == "freed" or cells[b].owner != victim
    assert any(cells[b].kind == "freed" for b in before.block_table[victim])
    assert any(len(ids) > 1 and ids != tuple(range(ids[0], ids[0] + len(ids)))
               for s in trace.steps for ids in s.block_table.values())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_whole_pool_is_numbered_and_its_block_lists_are_written(lang: str) -> None:
    _trouble, fix = _pair("kv_alloc", lang)
    with_, without = _trace("kv_alloc/with"), _trace("kv_alloc/without")
    step = with_.step(pick_step(with_, without, ["D"]).index)
    assert step is not None
    texts = _texts(fix)
    scattered = [r for r, ids in step.block_table.items() if ids != tuple(range(ids[0], ids[0] + len(ids)))]
    assert scattered, "the fix's step shows a request whose blocks lie apart"
    rid = scattered[0]
    listed = ("、" if lang == "zh" else ", ").join(str(b + 1) for b in step.block_table[rid])
    assert listed in texts
    numbers = re.findall(r">(\d+)</t", fix)
    assert [str(n) for n in range(1, with_.engine.num_blocks + 1)] == [
        n for n in numbers if n in {str(k) for k in range(1, with_.engine.num_blocks + 1)}
    ][: with_.engine.num_blocks]
