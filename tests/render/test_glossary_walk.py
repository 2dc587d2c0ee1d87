"""First-use glossary marking and the walkthrough's trace-generated sentences and table."""

from __future__ import annotations

from dataclasses import replace

from pipeline.artifacts.trace import CostView, TraceView
from pipeline.fields.serving.walkthrough import comparison_rows, step_sentences
from pipeline.plan.model import GlossaryEntry
from pipeline.render.glossary import Glossary
from tests.render.conftest import fixture_sim

ENTRIES = [
    GlossaryEntry(term="KV", definition="键和值。"),
    GlossaryEntry(term="KV cache", definition="存下的键和值。", aliases=["KV 缓存"]),
    GlossaryEntry(term="token", definition="最小单位。", aliases=["tokens"]),
]


def test_first_use_only_and_longest_match_wins() -> None:
    g = Glossary(ENTRIES)
    html, new = g.annotate("KV cache 存 KV，KV cache 很大。")
    assert new == [1, 0]
    assert html.count("<dfn") == 2
    assert html.startswith('<dfn class="term" id="term-2"')
    again, none = g.annotate("又是 KV cache 和 KV。")
    assert none == [] and "<dfn" not in again


def test_latin_terms_match_whole_words_only_and_aliases_count() -> None:
    g = Glossary(ENTRIES)
    html, new = g.annotate("tokenizer 不算，但 tokens 算。")
    assert new == [2]
    assert 'aria-describedby="note-3"' in html and ">tokens</dfn>" in html
    assert "tokenizer" in html and ">tokenizer" not in html


def test_annotate_escapes_text_and_terms() -> None:
    g = Glossary([GlossaryEntry(term="X", definition='"<b>" & 引号。')])
    html, _ = g.annotate("<script>X</script>")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'aria-describedby="note-1">X</dfn>' in html
    g2 = Glossary([GlossaryEntry(term='"<b>"', definition="d")])
    html2, _ = g2.annotate('a "<b>" b')
    assert "&#34;&lt;b&gt;&#34;</dfn>" in html2 and "<b>" not in html2


def test_force_defines_only_unseen_terms() -> None:
    g = Glossary(ENTRIES)
    g.annotate("token")
    assert g.force(["token", "KV cache", "unknown"]) == [1]


def test_step_sentences_follow_the_trace() -> None:
    trace = fixture_sim().traces["chunk/with"]
    rows = step_sentences(trace, "zh")
    assert [r.index for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[1].sentence == "A、B、C 各写 1 个字；D 预填充 5 个 token，还没出字；本步共 8 个 token。"
    assert "D 算完最后 5 个提示词 token，吐出第一个字" in rows[2].sentence
    assert "D 写完离场" in rows[4].sentence
    en = step_sentences(trace, "en")
    assert en[1].sentence == (
        "A, B, C each write 1 token; D prefills 5 prompt tokens, no output yet; "
        "8 tokens in this step."
    )


def test_stalls_are_named_in_the_without_trace() -> None:
    trace = fixture_sim().traces["chunk/without"]
    rows = step_sentences(trace, "zh")
    assert "A、B、C 这一步没分到 token，干等" in rows[1].sentence


def test_comparison_counts_the_same_way_for_both_variants() -> None:
    sim = fixture_sim()
    rows = comparison_rows(sim.traces["chunk/without"], sim.traces["chunk/with"], "D", "zh")
    table = {r.label: (r.without, r.with_) for r in rows}
    # The fixture traces carry no cost model: their clock is the step.
    assert table["D 的首字延迟（步）"] == ("1", "2")
    assert table["总步数"] == ("7", "6")
    assert table["单步最多 token"] == ("10", "8")
    assert table["老请求最长出字间隔（步）"] == ("2", "1")
    assert table["老请求干等的次数"] == ("3", "0")


def test_time_rows_are_labelled_in_the_cost_model_unit() -> None:
    sim = fixture_sim()
    ms = CostView(kind="linear", time_unit="ms")
    without, with_ = (replace(sim.traces[f"chunk/{v}"], cost=ms) for v in ("without", "with"))
    labels = [r.label for r in comparison_rows(without, with_, "D", "zh")]
    assert "D 的首字延迟（毫秒）" in labels and "老请求最长出字间隔（毫秒）" in labels
    assert not any("（步）" in label for label in labels)
    en = [r.label for r in comparison_rows(without, with_, "D", "en")]
    assert "D's time to first token (ms)" in en
    with_ = replace(with_, cost=CostView(kind="unit", time_unit="step"))
    mixed = [r.label for r in comparison_rows(without, with_, "D", "en")]
    # Two clocks: the timed rows are dropped rather than compared across units.
    assert not any("time to first token" in label for label in mixed) and "Steps in total" in mixed


def test_english_counts_of_one_are_singular() -> None:
    trace = TraceView.from_json(
        {"steps": [{"index": 1, "scheduled": {"D": 1}, "emitted": [], "running": ["D"]}]}
    )
    [row] = step_sentences(trace, "en")
    assert row.sentence == "D prefills 1 prompt token, no output yet; 1 token in this step."
    [zh] = step_sentences(trace, "zh")
    assert "本步共 1 个 token" in zh.sentence
