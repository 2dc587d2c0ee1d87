"""Interleaved pipeline schedules put two chunks of layers on each GPU. A beginner reading the
interleaved 1F1B card could not tell them apart ("F1" twice, no explanation): the picture draws
a later chunk's blocks with a bold edge (in the key too), and the walkthrough's sentences
name it."""

from __future__ import annotations

from pipeline.fields.training.showcase import panel_svg, run_view
from pipeline.fields.training.walkthrough import moment_sentence, moments


def _later(view) -> int:  # type: ignore[no-untyped-def]
    return sum(a.stage >= view.pp for lane in view.timeline for a in lane)


def test_the_later_chunk_is_named_in_the_walkthrough_and_only_there() -> None:
    view, _ = run_view("interleaving", "with")
    assert view.virtual_stages == 2 and _later(view) > 0
    said = [moment_sentence(view, m, "zh", i == 0) for i, m in enumerate(moments(view, 99))]
    assert "每张 GPU 存两段层" in said[0]
    assert any("（第二段）" in s for s in said)
    plain, _ = run_view("interleaving", "without")
    assert plain.virtual_stages == 1 and _later(plain) == 0
    assert not any("第二段" in moment_sentence(plain, m, "zh", i == 0)
                   for i, m in enumerate(moments(plain, 99)))


def test_the_picture_keys_the_bold_edge_only_when_there_are_two_chunks() -> None:
    assert "粗框" in panel_svg("interleaving", "pipeline", "with", "zh")
    assert "bold edge" in panel_svg("interleaving", "pipeline", "with", "en")
    assert "粗框" not in panel_svg("interleaving", "pipeline", "without", "zh")
