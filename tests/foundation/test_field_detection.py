"""The field detector on the shipped folders (FIELDS.md: "terms, with a test on real folders"):
the training folder is drawn with the training field (it had no terms, so it was offered only the
general field), and the serving and general folders keep exactly the fields they had."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import PageConfig
from pipeline.fields import chosen_fields
from pipeline.ingest.folder import ingest_folder

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(("name", "fields"), [
    ("training-at-scale", ("training", "general")),
    ("llm-inference-en", ("serving", "general")),
    ("llm-inference", ("serving", "general")),
    ("serving-frontier", ("serving", "general")),
    ("cpu-caches", ("general",)),
    ("household-budget", ("general",)),
])  # fmt: skip
def test_each_shipped_folder_gets_its_fields(name: str, fields: tuple[str, ...]) -> None:
    found = chosen_fields(ingest_folder(EXAMPLES / name), PageConfig())
    assert found.chosen == fields, found.scores
