"""Structured outputs and the capability table: the plan's schema in the subset and limits the
API accepts, which way each model is asked, and what happens when a model refuses a way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import (
    CURRENT_SONNET,
    FORCED_TOOL_ERROR,
    NO_STRUCTURED_OUTPUTS,
    TEST_KEY,
    FakeAnthropic,
    plan_reply,
    schema_problem,
)
from plans import SCENARIOS, valid_plan_input, values_for, write_folder

from pipeline.artifacts.sources import Corpus
from pipeline.errors import LLMError, LLMUsage
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.extract import PLAN_TOOL, run_extraction
from pipeline.plan.llm import DEFAULT_MODEL, LLMClient, LLMRejected, LLMReply, LLMRequest
from pipeline.plan.models import UNKNOWN, ModelCaps, _table, capabilities, default_model
from pipeline.plan.pricing import estimate_cost
from pipeline.plan.prompting import plan_tool_schema
from pipeline.plan.structured import (
    MAX_OPTIONAL_PARAMS,
    MAX_UNION_PARAMS,
    Answer,
    SchemaTooComplex,
    output_schema,
    schema_counts,
)


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return ingest_folder(write_folder(tmp_path / "articles"))


def _nodes(node: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            out.append(n)
            stack += list(n.values())
        elif isinstance(n, list):
            stack += n
    return out


# ---------------------------------------------------------------------------------------------
# The schema


def test_plan_schema_in_the_structured_outputs_subset() -> None:
    schema = output_schema(plan_tool_schema())
    assert schema_problem(schema) is None  # what the fake API checks
    objects = [n for n in _nodes(schema) if n.get("type") == "object"]
    assert objects and all(o["additionalProperties"] is False for o in objects)
    keys = {k for n in _nodes(schema) for k in n if k != "properties"}  # not property names
    assert not keys & {"minLength", "maxLength", "pattern", "maxItems", "minimum", "default"}
    # The constraints move into the descriptions, where the model still reads them.
    concept = schema["$defs"]["Concept"]["properties"]
    assert "maxLength: 20" in concept["name"]["description"]
    assert "pattern: ^[a-z][a-z0-9_]*$" in concept["id"]["description"]
    concepts = schema["properties"]["concepts"]
    assert "minItems" not in concepts and "minItems: 8" in concepts["description"]
    # $defs kept and every $ref resolves; tujie's own fields are not asked for.
    refs = {n["$ref"] for n in _nodes(schema) if "$ref" in n}
    assert refs and all(r.removeprefix("#/$defs/") in schema["$defs"] for r in refs)
    assert "meta" not in schema["properties"] and "format" not in schema["properties"]
    counts = schema_counts(schema)
    assert counts.optional <= MAX_OPTIONAL_PARAMS and counts.unions <= MAX_UNION_PARAMS


def _object(n_optional: int, prefix: str) -> dict[str, Any]:
    props = {f"{prefix}{i}": {"type": "string"} for i in range(n_optional)}
    return {"type": "object", "properties": {"id": {"type": "string"}, **props}, "required": ["id"]}


def test_over_the_optional_limit_objects_are_made_required() -> None:
    """30 optional properties: the object used most (twice, via $ref) is made all-required,
    which brings the count under the limit; the other stays as it was."""
    wide, other = {"$ref": "#/$defs/Wide"}, {"$ref": "#/$defs/Other"}
    schema = {
        "type": "object",
        "properties": {"a": wide, "b": wide, "c": other},
        "required": ["a", "b", "c"],
        "$defs": {"Wide": _object(10, "w"), "Other": _object(10, "o")},
    }
    assert schema_counts(schema).optional == 30
    strict = output_schema(schema)
    assert schema_counts(strict).optional == 10 <= MAX_OPTIONAL_PARAMS
    assert set(strict["$defs"]["Wide"]["required"]) == set(strict["$defs"]["Wide"]["properties"])
    assert strict["$defs"]["Other"]["required"] == ["id"]
    assert schema_problem(strict) is None


def test_over_the_union_limit_falls_back_to_tool_use() -> None:
    nullable = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    props = {f"u{i}": nullable for i in range(MAX_UNION_PARAMS + 1)}
    schema = {"type": "object", "properties": props, "required": list(props)}
    with pytest.raises(SchemaTooComplex, match="17 union-typed"):
        output_schema(schema)
    answer = Answer("submit", "Submit.", schema)
    fields = answer.request_fields("structured", forced_tool_use=True)
    assert "output_config" not in fields and fields["tool_choice"]["type"] == "tool"
    with pytest.raises(LLMError, match="structured outputs accept at most 16"):
        answer.request_fields("structured", forced_tool_use=False)


def test_tool_path_without_forcing_leaves_the_choice_to_the_model() -> None:
    fields = Answer("submit", "Submit.", plan_tool_schema()).request_fields("tool", False)
    assert fields["tool_choice"] == {"type": "auto"} and fields["tools"][0]["name"] == "submit"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ([{"type": "text", "text": '{"a": 1}'}], {"a": 1}),
        (
            [{"type": "thinking"}, {"type": "text", "text": 'Here:\n```json\n{"a": 2}\n```'}],
            {"a": 2},
        ),
        ([{"type": "tool_use", "id": "t", "name": "submit", "input": {"a": 3}}], {"a": 3}),
        ([{"type": "text", "text": "```json\n{,}\n```"}], "{,}\n"),
        ([{"type": "thinking"}], None),
    ],
)
def test_answer_read(content: list[dict[str, Any]], expected: Any) -> None:
    reply = LLMReply(content=content, stop_reason="end_turn", usage=LLMUsage(), model="m")
    assert Answer("submit", "Submit.", {}).read(reply) == expected


# ---------------------------------------------------------------------------------------------
# The capability table


def test_capability_table() -> None:
    assert DEFAULT_MODEL == default_model() == CURRENT_SONNET
    assert capabilities(CURRENT_SONNET) == ModelCaps(structured_outputs=True, forced_tool_use=False)
    assert capabilities("claude-sonnet-4-5-20250929") == ModelCaps(True, True)  # a snapshot
    assert capabilities("claude-opus-4-1").structured_outputs is False
    assert capabilities("claude-unlisted-9") == UNKNOWN and not UNKNOWN.known
    table = _table()
    assert table["_checked"] and table["default"] in table["models"]
    for model, row in table["models"].items():
        assert row["sources"] and all("http" in s or "SDK" in s for s in row["sources"]), model
        assert row["structured_outputs"] or row["forced_tool_use"], model
    assert estimate_cost(DEFAULT_MODEL, LLMUsage(input_tokens=10**6)) == (2.0, True)


# ---------------------------------------------------------------------------------------------
# Models that refuse a way of asking


def _run(client: LLMClient, corpus: Corpus, out: Path) -> Any:
    return run_extraction(
        client, corpus, lang="zh", stuck=[], out_dir=out, scenarios=SCENARIOS, values_for=values_for
    )


def test_current_sonnet_refuses_forced_tool_use(fake: FakeAnthropic) -> None:
    """The fake answers a forced tool call to the current Sonnet like the API: a 400, reported
    as `LLMRejected` naming tool_choice, never retried."""
    client = LLMClient(TEST_KEY, model=CURRENT_SONNET, base_url=fake.url)
    request = LLMRequest(
        system="s",
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=100,
        tools=[{"name": PLAN_TOOL, "input_schema": {"type": "object"}}],
        tool_choice={"type": "tool", "name": PLAN_TOOL},
    )
    with pytest.raises(LLMRejected) as err:
        client.create(request)
    assert err.value.feature == "tool_choice" and FORCED_TOOL_ERROR in str(err.value)
    assert "400" in str(err.value) and "try again later" not in str(err.value)
    assert len(fake.messages()) == 1


def test_a_schema_outside_the_subset_is_refused_as_a_schema_problem(fake: FakeAnthropic) -> None:
    """Sent untransformed, the plan's schema is refused by the fake like by the API; the 400 is
    about the schema, not a model without structured outputs."""
    client = LLMClient(TEST_KEY, model=CURRENT_SONNET, base_url=fake.url)
    fmt = {"type": "json_schema", "schema": plan_tool_schema()}
    request = LLMRequest(
        system="s",
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=100,
        output_config={"format": fmt},
    )
    with pytest.raises(LLMRejected) as err:
        client.create(request)
    assert err.value.feature == "schema" and "output_config.format.schema: " in str(err.value)


def test_current_sonnet_thinks_and_the_answer_is_the_text(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.replies = [plan_reply(valid_plan_input())]
    result = _run(LLMClient(TEST_KEY, base_url=fake.url), corpus, tmp_path / "out")
    assert result.attempts == 1 and result.model == CURRENT_SONNET
    [entry] = (tmp_path / "out" / "llm").glob("*.json")
    reply = json.loads(entry.read_text(encoding="utf-8"))["reply"]
    assert [b["type"] for b in reply["content"]] == ["thinking", "text"]


def test_unlisted_model_without_structured_outputs_falls_back_to_tool_use(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    fake.models["claude-unlisted-9"] = NO_STRUCTURED_OUTPUTS
    fake.replies = [plan_reply(valid_plan_input())]
    client = LLMClient(TEST_KEY, model="claude-unlisted-9", base_url=fake.url)
    result = _run(client, corpus, tmp_path / "out")
    assert result.attempts == 1 and result.plan.title == "推理服务图解"
    refused, answered = fake.messages()
    assert "output_config" in refused.body and "tool_choice" not in refused.body
    assert answered.body["tool_choice"] == {"type": "tool", "name": PLAN_TOOL}
    assert "output_config" not in answered.body
    assert result.usage.calls == 1  # the refused request bills nothing


def test_listed_model_that_refuses_its_row_names_the_table(
    fake: FakeAnthropic, corpus: Corpus, tmp_path: Path
) -> None:
    """The table is trusted: a listed model refusing structured outputs is an error that says
    which row to correct, not a silent second request."""
    fake.models["claude-sonnet-4-6"] = NO_STRUCTURED_OUTPUTS
    client = LLMClient(TEST_KEY, model="claude-sonnet-4-6", base_url=fake.url)
    with pytest.raises(LLMError) as err:
        _run(client, corpus, tmp_path / "out")
    message = str(err.value)
    assert "models.json" in message and "structured_outputs=true" in message
    assert "Extra inputs are not permitted" in message
    assert len(fake.messages()) == 1
