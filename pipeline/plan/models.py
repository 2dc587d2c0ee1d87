"""What each model accepts (`pipeline/plan/models.json`, with its sources and date): whether
the plan may be asked for by structured outputs or by a forced tool call, and the default model."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

MODELS_FILE = Path(__file__).with_name("models.json")


@dataclass(frozen=True)
class ModelCaps:
    """One row of the table; `known` is False for a model the table does not list."""

    structured_outputs: bool
    forced_tool_use: bool
    known: bool = True


# A model the table does not know: structured outputs are tried first (see models.json _about).
UNKNOWN = ModelCaps(structured_outputs=True, forced_tool_use=True, known=False)


@cache
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MODELS_FILE.read_text(encoding="utf-8"))
    return data


def longest_prefix(model: str, keys: Iterable[str]) -> str | None:
    """The longest key that is `model` or a dash-separated prefix of it (dated snapshots)."""
    matches = [k for k in keys if model == k or model.startswith(k + "-")]
    return max(matches, key=len) if matches else None


def capabilities(model: str) -> ModelCaps:
    rows: dict[str, dict[str, Any]] = _table()["models"]
    key = longest_prefix(model, rows)
    if key is None:
        return UNKNOWN
    row = rows[key]
    return ModelCaps(bool(row["structured_outputs"]), bool(row["forced_tool_use"]))


def default_model() -> str:
    return str(_table()["default"])
