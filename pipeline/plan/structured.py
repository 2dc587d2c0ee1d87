"""How an answer (the plan, or one article's notes) is asked for and read back.

Two ways, chosen per model by `pipeline/plan/models.json`:
- "structured": the request carries `output_config.format = {"type": "json_schema", "schema": …}`
  and the answer is the JSON text of the reply. The schema is the SDK's transform of ours
  (`strict_schema`), kept within the documented limits on optional and union-typed parameters.
- "tool": the request offers one tool whose `input_schema` is ours and forces the call with
  `tool_choice` (or, for a model that refuses forcing too, leaves the choice to the model and
  the prompt); the answer is the tool call's input.

Neither way checks the page rules: the validator and the repair loop do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pipeline.errors import LLMError
from pipeline.jsonlimits import loads as json_loads
from pipeline.plan.llm import LLMReply, strict_schema

Mode = Literal["structured", "tool"]

# Structured outputs compile the schema into a grammar; a request over these is refused (400
# "Schemas contains too many parameters with union types (… limit: 16 …)").
# Source: https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
# (as quoted in https://github.com/vercel/ai/pull/17268), checked 2026-12-01.
MAX_OPTIONAL_PARAMS = 24
MAX_UNION_PARAMS = 16
JSON_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


class SchemaTooComplex(ValueError):
    """The schema has more union-typed parameters than structured outputs accept."""


@dataclass(frozen=True)
class SchemaCounts:
    optional: int
    unions: int


def _objects(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every object schema, once per place it is used ($refs followed, so a definition used
    twice counts twice: the conservative reading of the limits)."""
    defs = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Iterator[dict[str, Any]]:
        if isinstance(node, list):
            for item in node:
                yield from walk(item, seen)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name not in seen:  # a recursive schema is walked once per branch
                yield from walk(defs.get(name), (*seen, name))
            return
        if node.get("type") == "object":
            yield node
        yield from walk(list(node.get("properties", {}).values()), seen)
        for key in ("items", "anyOf", "allOf"):
            yield from walk(node.get(key), seen)

    yield from walk(schema, ())  # $defs are reached through their $refs only


def _is_union(prop: Any) -> bool:
    return isinstance(prop, dict) and ("anyOf" in prop or isinstance(prop.get("type"), list))


def schema_counts(schema: dict[str, Any]) -> SchemaCounts:
    """Optional parameters (properties not in `required`) and union-typed ones (`anyOf` or a
    list of types) over the whole schema."""
    optional = unions = 0
    for obj in _objects(schema):
        props = obj.get("properties", {})
        optional += len(set(props) - set(obj.get("required", [])))
        unions += sum(1 for p in props.values() if _is_union(p))
    return SchemaCounts(optional, unions)


def _loosest(schema: dict[str, Any]) -> dict[str, Any]:
    """The object whose optional properties, times its uses, count most."""
    uses = list(_objects(schema))

    def saving(obj: dict[str, Any]) -> int:
        loose = set(obj.get("properties", {})) - set(obj.get("required", []))
        return len(loose) * sum(1 for o in uses if o is obj)

    return max(uses, key=saving)


def output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` as the structured-outputs `format.schema`: transformed by the SDK, then, while
    over the optional-parameter limit, objects have every property made required (the one that
    saves most first) — the model then sends the default (null, [], "") instead of leaving it out, which
    the plan model accepts. Raises `SchemaTooComplex` over the union limit."""
    strict = strict_schema(schema)
    while schema_counts(strict).optional > MAX_OPTIONAL_PARAMS:
        widest = _loosest(strict)
        widest["required"] = list(widest.get("properties", {}))
    unions = schema_counts(strict).unions
    if unions > MAX_UNION_PARAMS:
        raise SchemaTooComplex(
            f"the answer schema has {unions} union-typed parameters; structured outputs accept "
            f"at most {MAX_UNION_PARAMS}"
        )
    return strict


@dataclass(frozen=True)
class Answer:
    """One kind of answer: its JSON Schema, and the tool name/description for the tool path."""

    name: str
    description: str
    schema: dict[str, Any]

    def request_fields(self, mode: Mode, forced_tool_use: bool) -> dict[str, Any]:
        """The `LLMRequest` fields that ask for this answer."""
        if mode == "structured":
            try:
                fmt = {"type": "json_schema", "schema": output_schema(self.schema)}
                return {"output_config": {"format": fmt}}
            except SchemaTooComplex as err:
                if not forced_tool_use:
                    raise LLMError(f"cannot ask for {self.name}: {err}") from None
        tool = {"name": self.name, "input_schema": self.schema, "description": self.description}
        choice = {"type": "tool", "name": self.name} if forced_tool_use else {"type": "auto"}
        return {"tools": [tool], "tool_choice": choice}

    def read(self, reply: LLMReply) -> Any:
        """The answer in `reply`: the tool input if the tool was called, else the reply's text
        parsed as JSON (from a ```json fence if the text is not JSON itself); the text itself
        when it does not parse, None when there is none. JSON nested deeper than any answer
        raises `JSONRefused` (`pipeline.jsonlimits`)."""
        data = reply.tool_input(self.name)
        if data is not None:
            return data
        text = reply.text().strip()
        if not text:
            return None
        for candidate in (text, *(m.group(1) for m in JSON_FENCE.finditer(text))):
            try:
                return json_loads(candidate)  # JSONRefused (nested too deeply) is raised
            except json.JSONDecodeError:
                continue
        fenced = JSON_FENCE.search(text)
        return fenced.group(1) if fenced else text
