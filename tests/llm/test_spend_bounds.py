"""Bounds on what a plan may spend (issue 22, deliverable 4): the cap on paid model calls with
the estimate before a large run, and deadlines that end a call, the token count or the whole
plan whatever the server does (a hang, a stream that only pings). The real SDK against the fake
Messages API on 127.0.0.1, with deadlines shortened by the test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import (
    NO_STRUCTURED_MODEL,
    TEST_KEY,
    FakeAnthropic,
    Reply,
    plan_reply,
    usage,
)
from plans import SCENARIOS, invalid_plan_input, valid_plan_input, values_for, write_folder

from pipeline.artifacts.sources import Corpus
from pipeline.errors import CallCapRefused, LLMStopped, UsageError
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.bounds import DEFAULT_MAX_CALLS, SpendBounds, bounds_from_options
from pipeline.plan.extract import ExtractResult, run_extraction
from pipeline.plan.llm import LLMClient

NOTES = {"concepts": [{"name": "KV 缓存"}], "quotes": []}


def _notes_folder(root: Path, count: int) -> Corpus:
    root.mkdir(parents=True)
    for i in range(count):
        (root / f"note-{i:04d}.md").write_text(f"# 笔记 {i}\n\n第 {i} 条短笔记。\n", "utf-8")
    # the route's links: a folder without three is refused before any call (route preflight)
    (root / "reading-list.md").write_text(
        "".join(f"- [笔记 {c}](https://example.org/{c})\n" for c in "abc"), "utf-8"
    )
    return ingest_folder(root)


def fake_client(fake: FakeAnthropic, **options: Any) -> LLMClient:
    options = {"max_retries": 0, "initial_backoff_s": 0.01, **options}
    return LLMClient(TEST_KEY, base_url=fake.url, **options)


def extract_with(
    client: LLMClient, corpus: Corpus, out: Path, bounds: SpendBounds, **kw: Any
) -> ExtractResult:
    return run_extraction(
        client,
        corpus,
        lang="zh",
        stuck=[],
        out_dir=out,
        scenarios=SCENARIOS,
        values_for=values_for,
        bounds=bounds,
        **kw,
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return ingest_folder(write_folder(tmp_path / "articles"))


# ---------------------------------------------------------------------------------------------
# The cap on paid calls


def test_a_folder_of_3000_notes_is_refused_before_any_paid_call(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    corpus = _notes_folder(tmp_path / "notes", 3000)
    fake.count_tokens = 10**6  # over the corpus budget: the notes path, one call per article
    with pytest.raises(CallCapRefused) as refused:
        extract_with(fake_client(fake), corpus, tmp_path / "out", SpendBounds())
    line = refused.value.one_line()
    assert "3,003 more model calls" in line and "3,000 notes" in line
    assert f"over the cap of {DEFAULT_MAX_CALLS}" in line
    assert "est. cost at most $" in line and "--max-calls 3003" in line and "--yes" in line
    assert fake.messages() == []  # asked before paying: not one message was sent
    assert refused.value.exit_code == 2


def test_past_the_cap_with_max_calls_the_estimate_is_shown_first(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.count_tokens = 10**6  # two articles on the notes path: 2 notes + up to 3 plan rounds
    with pytest.raises(CallCapRefused, match="needs 5 more model calls"):
        extract_with(fake_client(fake), corpus, tmp_path / "out", SpendBounds(max_calls=4))
    assert fake.messages() == []
    fake.replies = [plan_reply(NOTES), plan_reply(NOTES), plan_reply(valid_plan_input())]
    said: list[str] = []
    bounds = bounds_from_options(5, False, None)
    result = extract_with(fake_client(fake), corpus, tmp_path / "out", bounds, notify=said.append)
    assert result.path == "notes" and result.usage.calls == 3
    assert len(said) == 1 and said[0].startswith("planned: 5 model calls (2 notes")
    assert "est. cost at most $" in said[0]


def test_notes_answered_from_the_cache_are_not_counted(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.count_tokens = 10**6
    fake.replies = [plan_reply(NOTES), plan_reply(NOTES), plan_reply(valid_plan_input())]
    extract_with(fake_client(fake), corpus, tmp_path / "out", SpendBounds(max_calls=5))
    # Again with a cap of 3: both notes are answered from the cache, so 0 + 3 fit.
    again = extract_with(fake_client(fake), corpus, tmp_path / "out", SpendBounds(max_calls=3))
    assert again.cached and len(fake.messages()) == 3


def test_repair_rounds_stop_at_the_cap_with_the_spend(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [plan_reply(invalid_plan_input(), use=usage(1000, 500, 0, 0))] * 3
    with pytest.raises(LLMStopped) as stopped:
        extract_with(fake_client(fake), corpus, tmp_path / "out", SpendBounds(max_calls=2), max_rounds=3)
    line = stopped.value.one_line()
    assert "reached the cap of 2 model calls" in line
    assert "spent: 2 call(s)" in line and "input 2,000" in line and "so far" in line
    assert len(fake.messages()) == 2


@pytest.mark.parametrize(
    ("options", "said"),
    [((0, False, None), "--max-calls 0"), ((None, False, 0.0), "--deadline 0.0")],
)
def test_a_cap_or_deadline_that_is_no_positive_number_is_a_usage_error(
    options: tuple[Any, bool, Any], said: str
) -> None:
    with pytest.raises(UsageError, match=said):
        bounds_from_options(*options)


def test_yes_lifts_the_cap() -> None:
    assert bounds_from_options(None, True, None).max_calls is None
    assert bounds_from_options(None, False, None).max_calls == DEFAULT_MAX_CALLS


# ---------------------------------------------------------------------------------------------
# Deadlines: liveness, not read timeouts


def test_a_server_that_accepts_and_never_answers_ends_at_the_call_deadline(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [Reply(hang=True)]
    client = fake_client(fake, timeout_s=60.0, call_deadline_s=0.5)  # the read timeout is far off
    with pytest.raises(LLMStopped) as stopped:
        extract_with(client, corpus, tmp_path / "out", SpendBounds())
    line = stopped.value.one_line()
    assert "no complete answer within the 0.5 s deadline for one model call" in line
    assert fake.url in line and "spent: 0 call(s)" in line
    assert TEST_KEY not in line
    assert stopped.value.exit_code == 4


def test_a_stream_that_pings_forever_ends_at_the_call_deadline(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    """The pings come far inside the 0.3 s read timeout, so only the deadline can end it."""
    fake.replies = [Reply(pings_forever=True)]
    client = fake_client(fake, timeout_s=0.3, call_deadline_s=1.5)
    with pytest.raises(LLMStopped, match="1.5 s deadline for one model call"):
        extract_with(client, corpus, tmp_path / "out", SpendBounds())
    [request] = fake.messages()
    assert request.body["stream"] is True


def test_the_token_count_hanging_ends_at_its_deadline(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.count_tokens = Reply(hang=True)
    bounds = SpendBounds(count_deadline_s=0.4)
    with pytest.raises(LLMStopped, match=r"the token count at .*0\.4 s deadline for the token count"):
        extract_with(fake_client(fake, timeout_s=60.0), corpus, tmp_path / "out", bounds)
    assert fake.messages() == []


def test_the_whole_plan_ends_at_its_deadline_with_what_it_spent(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    corpus = _notes_folder(tmp_path / "notes", 3)
    fake.count_tokens = 10**6
    fake.replies = [plan_reply(NOTES, use=usage(3000, 100, 0, 0)), Reply(hang=True)]
    bounds = SpendBounds(plan_deadline_s=3.0)
    with pytest.raises(LLMStopped) as stopped:
        extract_with(fake_client(fake, timeout_s=60.0), corpus, tmp_path / "out", bounds)
    line = stopped.value.one_line()
    assert "3 s deadline for the whole plan" in line
    assert "spent: 1 call(s)" in line and "input 3,000" in line


# ---------------------------------------------------------------------------------------------
# A reply nested 100,000 deep: one line, with the spend


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("model", "notes_path"),
    [
        (None, False),  # structured outputs: the JSON text of the answer
        (NO_STRUCTURED_MODEL, False),  # a streamed tool call: the SDK's partial-JSON parser
        (NO_STRUCTURED_MODEL, True),  # a notes call, not streamed: the SDK's json.loads
    ],
)
def test_a_reply_nested_100000_deep_stops_the_plan_in_one_line(
    fake: FakeAnthropic, tmp_path: Path, model: str | None, notes_path: bool
) -> None:
    corpus = _notes_folder(tmp_path / "notes", 2)
    if notes_path:
        fake.count_tokens = 10**6
    fake.replies = [Reply(raw_answer=DEEP, usage=usage(4000, 300, 0, 0))]
    client = fake_client(fake, **({"model": model} if model else {}))
    with pytest.raises(LLMStopped) as stopped:
        extract_with(client, corpus, tmp_path / "out", SpendBounds())
    line = stopped.value.one_line()
    assert "nested" in line and "spent:" in line and len(line) < 600
    assert len(fake.messages()) == 1


def test_cli_plan_against_a_deep_reply_prints_one_line_and_the_spend(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    from test_plan_cli import _env, run_plan

    fake.replies = [Reply(raw_answer=DEEP)]
    result = run_plan(tmp_path / "out", _env(fake))
    assert result.returncode == 4, result.stderr
    assert "Traceback" not in result.stderr
    [line] = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert "nested more than 64 levels deep" in line and "spent: 1 call(s)" in line


# ---------------------------------------------------------------------------------------------
# The CLI: the refusal, the flags, the estimate printed before the run


def test_tujie_plan_over_the_cap_exits_2_and_with_yes_prints_the_estimate_first(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    from test_plan_cli import EXAMPLE, _env, _shipped_answer, run_plan

    articles = len([p for p in EXAMPLE.iterdir() if p.suffix == ".md" and p.stem[0].isdigit()])
    fake.count_tokens = 10**6  # the notes path: one call per article
    refused = run_plan(tmp_path / "out", _env(fake), "--max-calls", "3")
    assert refused.returncode == 2, refused.stderr
    assert "Traceback" not in refused.stderr and fake.messages() == []
    [line] = [ln for ln in refused.stderr.splitlines() if ln.startswith("error:")]
    assert f"needs {articles + 3} more model calls" in line and "--max-calls" in line
    fake.replies = [plan_reply(NOTES) for _ in range(articles)] + [plan_reply(_shipped_answer())]
    done = run_plan(tmp_path / "out", _env(fake), "--yes")
    assert done.returncode == 0, done.stderr
    planned = [ln for ln in done.stdout.splitlines() if ln.startswith("planned:")]
    assert len(planned) == 1 and "est. cost at most $" in planned[0], done.stdout
    assert done.stdout.index("planned:") < done.stdout.index("plan: ")  # before, not after
    assert len(fake.messages()) == articles + 1


def test_tujie_plan_with_a_cap_of_zero_is_a_usage_error(fake: FakeAnthropic, tmp_path: Path) -> None:
    from test_plan_cli import _env, run_plan

    result = run_plan(tmp_path / "out", _env(fake), "--max-calls", "0")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "error: --max-calls 0: give a number of calls of at least 1" in result.stderr
