"""Plan extraction against the fake Messages API: the real SDK over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import (
    CURRENT_SONNET,
    NO_STRUCTURED_MODEL,
    TEST_KEY,
    FakeAnthropic,
    Recorded,
    error_reply,
    plan_reply,
    rule_breaker,
    text_reply,
    usage,
)
from plans import SCENARIOS, invalid_plan_input, valid_plan_input, values_for, write_folder

from pipeline.artifacts.sources import Corpus
from pipeline.errors import EnvironmentMissing, LLMError, PlanRepairFailed
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.extract import (
    PLAN_MAX_TOKENS,
    PLAN_MAX_TOKENS_CAP,
    PLAN_TOOL,
    corpus_hash,
    extract_plan,
    format_usage,
    run_extraction,
)
from pipeline.plan.llm import LLMClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return ingest_folder(write_folder(tmp_path / "articles"))


def _extract(corpus: Corpus, out: Path, **kw: Any):  # type: ignore[no-untyped-def]
    return extract_plan(
        corpus,
        lang="zh",
        stuck=["chunked"],
        out_dir=out,
        scenarios=SCENARIOS,
        values_for=values_for,
        **kw,
    )


def _blocks(req: Recorded) -> list[dict[str, Any]]:
    out = []
    for m in req.body["messages"]:
        content = m["content"]
        out += [{"type": "text", "text": content}] if isinstance(content, str) else content
    return out


def _assert_corpus_sent_once(req: Recorded, corpus: Corpus) -> None:
    marker = corpus.sources[0].paragraphs[1].text
    texts = [str(b.get("text") or b.get("content") or "") for b in _blocks(req)]
    holding = [b for b, t in zip(_blocks(req), texts, strict=True) if marker in t]
    assert len(holding) == 1, "the corpus must be sent exactly once per request"
    assert sum(t.count(marker) for t in texts) == 1
    assert holding[0]["cache_control"] == {"type": "ephemeral"}
    assert marker not in req.body["system"]
    every = "".join(texts)
    assert all(p.text in every for s in corpus.sources for p in s.paragraphs)


def _assert_no_key_on_disk(root: Path) -> None:
    for f in root.rglob("*"):
        if f.is_file():
            assert TEST_KEY not in f.read_text(encoding="utf-8", errors="replace"), f


def test_valid_plan_first_time(fake: FakeAnthropic, corpus: Corpus, tmp_path: Path) -> None:
    fake.replies = [plan_reply(valid_plan_input(), use=usage(1000, 2000, 800, 0))]
    result = _extract(corpus, tmp_path / "out")
    assert result.plan.title == "推理服务图解"
    assert len(result.plan.concepts) == 8
    assert (result.path, result.attempts, result.cached) == ("direct", 1, False)
    assert result.plan.meta.made_by == "llm"
    assert result.plan.meta.source_hash == corpus_hash(corpus)
    assert result.plan.meta.path == "direct"
    assert result.usage.input_tokens == 1000 and result.usage.cache_creation_input_tokens == 800
    # claude-sonnet-5-5: 1000*2 + 2000*10 + 800*2.5 per MTok
    assert result.cost_usd == pytest.approx((2000 + 20000 + 2000) / 1e6)
    assert result.plan.meta.usage and result.plan.meta.usage["cost_usd"] == pytest.approx(
        result.cost_usd
    )
    [req] = fake.messages()
    # The current Sonnet by default, asked by structured outputs (the fake refuses forcing).
    assert req.body["model"] == CURRENT_SONNET
    assert req.body["output_config"]["format"]["type"] == "json_schema"
    assert "tool_choice" not in req.body and "tools" not in req.body
    assert not {"temperature", "top_p", "top_k"} & set(req.body)
    assert req.body["stream"] is True  # a long output is streamed (SSE)
    assert "chunked_prefill" in req.body["system"] and "D.ttft" in req.body["system"]
    _assert_corpus_sent_once(req, corpus)
    assert TEST_KEY in (req.headers.get("x-api-key", "") + req.headers.get("authorization", ""))
    _assert_no_key_on_disk(tmp_path / "out")
    line = format_usage(result)
    assert "input 1,000" in line and "output 2,000" in line and "cache write 800" in line
    assert f"${result.cost_usd:.4f}" in line


def _assert_violations_said(text: str) -> None:
    assert "concepts: List should have at least 8 items" in text
    assert "concepts[2].trouble.caption: 16 characters after filling, limit 15" in text
    assert "route[0].url: not from the sources: https://invented.example.com/nowhere" in text
    assert "concepts[0].citations[0].quote: not found in source '01-loop'" in text


def test_invalid_plan_then_repaired(fake: FakeAnthropic, corpus: Corpus, tmp_path: Path) -> None:
    """Structured outputs: the schema-valid answer that breaks the page rules is replayed as
    JSON text and the violations follow as text; the repaired answer is accepted."""
    fake.replies = [
        plan_reply(invalid_plan_input()),
        plan_reply(valid_plan_input(), use=usage(50, 2000, 0, 1000)),
    ]
    result = _extract(corpus, tmp_path / "out")
    assert result.attempts == 2 and len(result.plan.concepts) == 8
    assert result.usage.calls == 2 and result.usage.cache_read_input_tokens == 1000
    first, repair = fake.messages()
    assert repair.body["output_config"] == first.body["output_config"]
    assert "tool_choice" not in repair.body
    _assert_corpus_sent_once(repair, corpus)
    assistant = repair.body["messages"][1]
    assert assistant["role"] == "assistant"
    [answer] = assistant["content"]  # the thinking block is not replayed
    assert answer["type"] == "text"
    assert json.loads(answer["text"])["route"][0]["url"] == "https://invented.example.com/nowhere"
    [violations] = repair.body["messages"][2]["content"]
    assert violations["type"] == "text" and "answer again with the COMPLETE" in violations["text"]
    _assert_violations_said(violations["text"])


def test_invalid_plan_repaired_through_tool_use(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    """A model without structured outputs: forced tool use, violations as a tool_result."""
    fake.replies = [plan_reply(invalid_plan_input()), plan_reply(valid_plan_input())]
    result = _extract(corpus, tmp_path / "out", model=NO_STRUCTURED_MODEL)
    assert result.attempts == 2 and result.model == NO_STRUCTURED_MODEL
    first, repair = fake.messages()
    assert "output_config" not in first.body
    assert first.body["tool_choice"] == {"type": "tool", "name": PLAN_TOOL}
    assert "Call `submit_plan` once" in first.body["messages"][0]["content"][1]["text"]
    assistant = repair.body["messages"][1]
    assert (
        assistant["content"][0]["input"]["route"][0]["url"]
        == "https://invented.example.com/nowhere"
    )
    [result_block] = repair.body["messages"][2]["content"]
    assert result_block["type"] == "tool_result" and result_block["is_error"] is True
    _assert_violations_said(result_block["content"])


def test_overloaded_twice_then_success(fake: FakeAnthropic, corpus: Corpus, tmp_path: Path) -> None:
    busy = error_reply(529, "overloaded_error", "Overloaded", {"retry-after-ms": "5"})
    fake.replies = [busy, busy, plan_reply(valid_plan_input())]
    result = _extract(corpus, tmp_path / "out")
    assert result.attempts == 1
    assert len(fake.messages()) == 3
    assert result.usage.calls == 1  # failed calls bill nothing


def test_retry_after_too_long_gives_up_at_once(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [error_reply(429, "rate_limit_error", "slow down", {"retry-after": "3600"})]
    with pytest.raises(LLMError) as err:
        _extract(corpus, tmp_path / "out")
    assert "429" in str(err.value) and "3600" in str(err.value)
    assert len(fake.messages()) == 1


def test_truncated_output_retried_with_higher_limit(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    cut = text_reply('{"title": "推理服务图解", "concepts": [{"id": "lo', stop_reason="max_tokens")
    fake.replies = [cut, plan_reply(valid_plan_input())]
    result = _extract(corpus, tmp_path / "out")
    first, second = fake.messages()
    assert first.body["max_tokens"] == PLAN_MAX_TOKENS
    assert second.body["max_tokens"] == 2 * PLAN_MAX_TOKENS
    assert result.attempts == 1 and result.path == "direct"


def test_truncated_at_cap_falls_back_to_notes(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    cut = text_reply('{"title": "x", "con', stop_reason="max_tokens")
    notes = plan_reply({"concepts": [{"name": "主循环"}], "quotes": []})
    fake.replies = [cut, cut, notes, notes, plan_reply(valid_plan_input())]
    result = _extract(corpus, tmp_path / "out")
    assert result.path == "notes" and result.plan.meta.path == "notes"
    assert [r.body["max_tokens"] for r in fake.messages()][:2] == [
        PLAN_MAX_TOKENS,
        PLAN_MAX_TOKENS_CAP,
    ]


def test_malformed_json_is_repaired(fake: FakeAnthropic, corpus: Corpus, tmp_path: Path) -> None:
    fake.replies = [
        text_reply('```json\n{"title": "推理", "concepts": [,,]\n```'),
        plan_reply(valid_plan_input()),
    ]
    result = _extract(corpus, tmp_path / "out")
    assert result.attempts == 2
    repair = fake.messages()[1]
    assert repair.body["messages"][1]["content"][0]["type"] == "text"  # the previous output
    last = repair.body["messages"][2]["content"][0]["text"]
    assert "(json): not valid JSON" in last


def test_unauthorized_is_a_clear_llm_error(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [error_reply(401, "authentication_error", "invalid x-api-key")]
    with pytest.raises(LLMError) as err:
        _extract(corpus, tmp_path / "out")
    message = err.value.one_line()
    assert "401" in message and "ANTHROPIC_API_KEY" in message
    assert TEST_KEY not in message
    assert err.value.exit_code == 4
    assert len(fake.messages()) == 1  # never retried


def test_forbidden_is_a_clear_llm_error(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [error_reply(403, "permission_error", "no access to this model")]
    with pytest.raises(LLMError, match="403"):
        _extract(corpus, tmp_path / "out")
    assert len(fake.messages()) == 1


def test_server_errors_exhaust_bounded_retries(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [error_reply(500, "api_error", "boom", {"retry-after-ms": "1"})] * 6
    client = LLMClient(TEST_KEY, base_url=fake.url, max_retries=2)
    with pytest.raises(LLMError) as err:
        run_extraction(
            client,
            corpus,
            lang="zh",
            stuck=[],
            out_dir=tmp_path / "out",
            scenarios=SCENARIOS,
            values_for=values_for,
        )
    assert "500 api_error: boom after 3 attempt(s)" in str(err.value)
    assert len(fake.messages()) == 3


def test_no_key_is_environment_missing(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(EnvironmentMissing) as err:
        _extract(corpus, tmp_path / "out")
    assert "ANTHROPIC_API_KEY" in str(err.value) and "plan.json" in str(err.value)
    assert err.value.exit_code == 3


def test_refusal_is_a_clear_llm_error(fake: FakeAnthropic, corpus: Corpus, tmp_path: Path) -> None:
    fake.replies = [text_reply("I can't help with that.", stop_reason="refusal")]
    with pytest.raises(LLMError, match="refused"):
        _extract(corpus, tmp_path / "out")


def test_repair_gives_up_and_saves_best_attempt(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.models[CURRENT_SONNET] = rule_breaker(invalid_plan_input())  # answers it every time
    out = tmp_path / "out"
    with pytest.raises(PlanRepairFailed) as err:
        _extract(corpus, out, max_rounds=3)
    failure = err.value
    assert failure.attempts == 3 and failure.usage.calls == 3
    assert any(v.path == "route[0].url" for v in failure.violations)
    assert failure.saved_to == out / "plan.invalid.json"
    saved = json.loads(failure.saved_to.read_text(encoding="utf-8"))
    assert saved["route"][0]["url"] == "https://invented.example.com/nowhere"
    assert failure.exit_code == 4
    _assert_no_key_on_disk(out)


def test_cache_reuses_identical_request_unless_refresh(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    fake.replies = [plan_reply(valid_plan_input())]
    first = _extract(corpus, out)
    assert len(list((out / "llm").glob("*.json"))) == 1
    second = _extract(corpus, out)
    assert second.cached and not first.cached
    assert len(fake.messages()) == 1
    assert len([r for r in fake.requests if r.path.endswith("count_tokens")]) == 1
    assert second.plan.concepts == first.plan.concepts
    assert second.usage.calls == 0 and second.cost_usd == 0
    assert "from the cache" in format_usage(second)
    fake.replies = [plan_reply(valid_plan_input())]
    third = _extract(corpus, out, refresh=True)
    assert not third.cached and len(fake.messages()) == 2


def test_large_corpus_takes_the_notes_path(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.count_tokens = 10**6
    kept = "KV cache 把算过的中间结果存起来，下一步不用重算。"
    notes = plan_reply(
        {
            "concepts": [{"name": "KV 缓存", "problem": "重算"}],
            "quotes": [{"quote": kept}, {"quote": "编造的句子不应出现"}],
        },
    )
    fake.replies = [notes, notes, plan_reply(valid_plan_input())]
    result = _extract(corpus, tmp_path / "out")
    assert result.path == "notes" and result.usage.calls == 3
    note_reqs, plan_req = fake.messages()[:2], fake.messages()[2]
    assert all("stream" not in r.body for r in note_reqs)  # short outputs: plain JSON replies
    for r in note_reqs:  # notes too are asked by structured outputs, not a forced tool call
        assert "tool_choice" not in r.body
        assert "quotes" in r.body["output_config"]["format"]["schema"]["properties"]
    corpus_block = plan_req.body["messages"][0]["content"][0]
    assert corpus_block["cache_control"] == {"type": "ephemeral"}
    assert 'kind="notes"' in corpus_block["text"] and kept in corpus_block["text"]
    assert "编造的句子" not in corpus_block["text"]  # a quote not in the source is dropped


def test_timeout_becomes_llm_error(fake: FakeAnthropic, corpus: Corpus, tmp_path: Path) -> None:
    slow = plan_reply(valid_plan_input())
    slow.delay_s = 0.6
    fake.replies = [slow, slow]
    client = LLMClient(
        TEST_KEY, base_url=fake.url, timeout_s=0.2, max_retries=1, initial_backoff_s=0.01
    )
    with pytest.raises(LLMError, match="no answer"):
        run_extraction(
            client,
            corpus,
            lang="zh",
            stuck=[],
            out_dir=tmp_path / "out",
            scenarios=SCENARIOS,
            values_for=values_for,
        )
    assert len(fake.messages()) == 2


def test_example_folder_returns_the_scripted_plan(fake: FakeAnthropic, tmp_path: Path) -> None:
    plan_file = EXAMPLE / "plan.json"
    shipped = json.loads(plan_file.read_text(encoding="utf-8"))
    answer = {k: v for k, v in shipped.items() if k not in ("meta", "format")}
    fake.replies = [plan_reply(answer)]  # the fake checks it against the schema it was sent
    corpus = ingest_folder(EXAMPLE)
    result = extract_plan(
        corpus, lang="zh", stuck=["chunked_prefill"], out_dir=tmp_path / "out", scenarios=SCENARIOS
    )
    assert [c.id for c in result.plan.concepts] == [c["id"] for c in shipped["concepts"]]
    assert result.plan.meta.made_by == "llm" and result.attempts == 1
    _assert_corpus_sent_once(fake.messages()[0], corpus)
