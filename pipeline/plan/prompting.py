"""Prompts for the LLM: jinja2 templates in `prompts/`, the plan's tool schema, token estimates
and the corpus hash kept in a plan's metadata."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from typing import Any

import jinja2

from pipeline.artifacts.sources import Corpus
from pipeline.paths import prompts_dir
from pipeline.plan.model import Plan

# Offline token estimate when the API's counter is unavailable: CJK ~1 token per character,
# other text ~4 characters per token.
LATIN_CHARS_PER_TOKEN = 4
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


@cache
def _environment() -> jinja2.Environment:
    # Prompts are plain text for the model, not HTML: autoescaping would mangle quotes.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(prompts_dir()),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_prompt(template: str, **values: Any) -> str:
    return _environment().get_template(template).render(**values)


@cache
def _plan_tool_schema_text() -> str:
    schema = Plan.model_json_schema()
    for name in ("meta", "format"):
        schema["properties"].pop(name, None)
        if name in schema.get("required", []):
            schema["required"].remove(name)
    schema.get("$defs", {}).pop("Meta", None)
    return json.dumps(schema, sort_keys=True)


def plan_tool_schema() -> dict[str, Any]:
    """The plan's JSON Schema as the tool input: `meta` and `format` are set by tujie."""
    result: dict[str, Any] = json.loads(_plan_tool_schema_text())
    return result


def corpus_hash(corpus: Corpus) -> str:
    """The source hash kept in `plan.meta`: the articles' bytes and the reading list."""
    parts = sorted(f"{s.path}\0{s.sha256}" for s in corpus.sources)
    parts += [f"{e.title}\0{e.url}\0{e.note}" for e in corpus.reading_list]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def estimate_tokens(text: str) -> int:
    cjk = len(CJK.findall(text))
    return cjk + (len(text) - cjk) // LATIN_CHARS_PER_TOKEN + 1
