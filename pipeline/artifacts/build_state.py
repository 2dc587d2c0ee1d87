"""The build's own record (`build.json`): for each stage the key of the inputs it last ran on and
the content hash of every output it wrote (a stage is skipped only when both still match: an
output damaged or edited since runs its stage again), and the hash of the inputs the page was
built from, taken before they were read (publish refuses a build older than its inputs). Written
by `pipeline.build`, read by it and by publish."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.atomic import write_atomic

STATE_FORMAT = 2  # 2: outputs' hashes (a format-1 record runs every stage once more)
STATE_FILE = "build.json"


class StageState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str
    outputs: dict[str, str] = Field(
        default_factory=dict, description="each output (relative to the build) -> its hash"
    )


class BuildState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: int = STATE_FORMAT
    stages: dict[str, StageState] = Field(default_factory=dict)
    inputs_hash: str | None = None

    @classmethod
    def load(cls, path: Path) -> BuildState:
        """The state on disk, or a fresh one when it is missing, unreadable or of another format
        (a build that cannot trust its record simply runs every stage again)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            state = cls.model_validate(data)
        except (OSError, ValueError, ValidationError):
            return cls()
        return state if state.format == STATE_FORMAT else cls()

    def save(self, path: Path) -> None:
        data = self.model_dump(mode="json", exclude_none=True)
        write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
