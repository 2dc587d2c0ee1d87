"""Reading a typed artifact from its JSON file: a missing or malformed file is one InputError
naming the file and what to run (shared by the link report and the review report)."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.errors import InputError

Model = TypeVar("Model", bound=BaseModel)


def load_model(model: type[Model], path: Path, *, what: str, missing: str, invalid: str) -> Model:
    """`path` as a `model`; `missing` / `invalid` say how to make a good one."""
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path} not found; {missing}") from None
    except (OSError, UnicodeDecodeError, ValidationError) as err:
        first = str(err).splitlines()[0]
        raise InputError(f"{path} is not a valid {what} ({first}); {invalid}") from None
