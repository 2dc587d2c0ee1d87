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
