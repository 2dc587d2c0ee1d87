"""The fake Messages API holding each messages request until the test releases it, so a test can
act while a real `tujie` waits on the model (edit an article, press Ctrl-C); and the example's
reviewed plan as the model's answer."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from tests.llm.fake_anthropic import FakeAnthropic, Reply

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference"
HOLD_S = 300.0  # a test that never releases is stuck: the request then goes on


class HeldFake(FakeAnthropic):
    """`arrived` is set when a messages request comes in; it is answered once `release` is."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Event()
        self.release = threading.Event()

    def _next(self, path: str, body: dict[str, Any]) -> Reply:
        if path == "/v1/messages":
            self.arrived.set()
            self.release.wait(HOLD_S)
        return super()._next(path, body)


def shipped_answer() -> dict[str, Any]:
    """The example's hand-reviewed plan as a model would answer it (no meta, no format)."""
    shipped = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    return {k: v for k, v in shipped.items() if k not in ("meta", "format")}
