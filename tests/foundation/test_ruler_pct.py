"""A ruler cell's percentage comes from the two measured values, not the sweep's change_pct,
which is already rounded to 0.1 (a reader found prefix caching's 1372.1 -> 1502.06 tokens/s,
+9.47%, printed +10% after 9.5 was rounded again)."""

from __future__ import annotations

from pipeline.artifacts.sim import TechniqueView


def test_the_percentage_is_computed_from_the_measured_values() -> None:
    tech = TechniqueView(id="prefix_caching", change_pct={"throughput": 9.5},
                         baseline={"throughput": 1372.101}, variant={"throughput": 1502.061})
    pct = tech.shown_pct("throughput")
    assert pct is not None and abs(pct - 9.4716) < 1e-3 and f"{round(pct):+d}%" == "+9%"


def test_without_measured_values_the_sweeps_figure_stands() -> None:
    tech = TechniqueView(id="x", change_pct={"ttft": -74.1})
    assert tech.shown_pct("ttft") == -74.1
    zero = TechniqueView(id="x", change_pct={"ttft": 5.0}, baseline={"ttft": 0.0},
                         variant={"ttft": 1.0})
    assert zero.shown_pct("ttft") == 5.0  # no percentage of a zero baseline


def test_a_metric_that_is_a_share_changes_in_points() -> None:
    """MFU is already a percentage (the sweep's unit "% of the GPUs' ... peak"): 28.5 -> 31.5
    is "+3 pts", not "+10%"; a change under half a point keeps its decimal, so its arrow is
    never beside "+0"."""
    from pipeline.artifacts.sim import SweepView
    from pipeline.draw.ruler_rows import _measured, is_share
    from pipeline.plan.model import RulerMetric

    sweep = SweepView(units={"mfu": "% of the GPUs' dense bf16 peak", "memory": "GB"})
    assert is_share(sweep, "mfu") and not is_share(sweep, "memory")
    mfu = RulerMetric(id="mfu", name="MFU", better="higher", definition="share of peak")
    up = TechniqueView(id="overlap", baseline={"mfu": 28.5}, variant={"mfu": 31.5})
    cell = _measured(up, mfu, "P99", share=True)
    assert cell is not None and cell.text == "+3 pts" and cell.kind == "better"
    small = TechniqueView(id="tp", baseline={"mfu": 36.6}, variant={"mfu": 36.2})
    cell = _measured(small, mfu, "P99", share=True, lang="zh")
    assert cell is not None and cell.text == "-0.4 个点" and cell.kind == "worse"
    cell = _measured(up, mfu, "P99")
    assert cell is not None and cell.text == "+11%"
