"""One line instead of a traceback for a bad `ANTHROPIC_BASE_URL` (the variable named, its
password masked) and for a damaged cached model reply (asked again, the file named) — issue 22,
deliverable 5. The real SDK against the fake Messages API; the CLI in a subprocess."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fake_anthropic import TEST_KEY, FakeAnthropic, plan_reply
from plans import valid_plan_input, write_folder
from test_plan_cli import run_plan
from test_spend_bounds import extract_with, fake_client

from pipeline.errors import EnvironmentMissing
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.base_url import mask_password
from pipeline.plan.bounds import SpendBounds
from pipeline.plan.extract import CACHE_DIR_NAME, ExtractResult
from pipeline.plan.llm import LLMClient

PASSWORD = "hunter2-secret"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (f"http://proxy:{PASSWORD}@localhost:99999", "Port out of range"),
        (f"http://proxy:{PASSWORD}@localhost:abc/v1", "Port could not be cast"),
        ("http://[::1", "Invalid IPv6 URL"),
        ("localhost:8080", "not an http(s) address with a host"),
    ],
)
def test_a_bad_base_url_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, url: str, said: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    with pytest.raises(EnvironmentMissing) as refused:
        LLMClient(TEST_KEY)
    line = refused.value.one_line()
    assert line.startswith("ANTHROPIC_BASE_URL = ") and said in line
    assert PASSWORD not in line and TEST_KEY not in line
    assert refused.value.exit_code == 3


def test_tujie_plan_with_a_bad_port_exits_3_without_a_traceback(tmp_path: Path) -> None:
    url = f"http://proxy:{PASSWORD}@127.0.0.1:abc"
    result = run_plan(tmp_path, {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": TEST_KEY})
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr and PASSWORD not in result.stderr
    [line] = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert line.startswith("error: ANTHROPIC_BASE_URL = http://***@127.0.0.1:abc")


def test_the_password_of_a_working_base_url_never_reaches_an_error(fake: FakeAnthropic) -> None:
    host = fake.url.removeprefix("http://")
    client = LLMClient(TEST_KEY, base_url=f"http://proxy:{PASSWORD}@{host}")
    assert PASSWORD not in client.base_url and "proxy:***@" in client.base_url
    assert mask_password("https://u:p@ss:w@h/x") == "https://u:***@h/x"
    assert mask_password("https://h/x?a=b:c@d") == "https://h/x?a=b:c@d"


# ---------------------------------------------------------------------------------------------
# A damaged cached reply


def _entry_damages(entry: dict) -> dict[str, str]:  # type: ignore[type-arg]
    """Ways a cache entry is found broken: each the text of the file."""
    text = json.dumps(entry)
    return {
        "cut in half": text[: len(text) // 2],
        "not JSON": "\x00\x01 not json",
        "reply is a list": json.dumps({**entry, "reply": []}),
        "content of numbers": json.dumps({**entry, "reply": {**entry["reply"], "content": [1]}}),
        "usage of text": json.dumps(
            {**entry, "reply": {**entry["reply"], "usage": {"input_tokens": "many"}}}
        ),
        "another request": json.dumps({**entry, "request_sha256": "0" * 64}),
        "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    }


def test_a_damaged_cached_reply_is_asked_again_and_named(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    corpus = ingest_folder(write_folder(tmp_path / "articles"))
    out = tmp_path / "out"

    def extract(said: list[str]) -> ExtractResult:
        return extract_with(fake_client(fake), corpus, out, SpendBounds(), notify=said.append)

    fake.replies = [plan_reply(valid_plan_input())]
    extract([])
    [cached] = list((out / CACHE_DIR_NAME).glob("*.json"))
    entry = json.loads(cached.read_text(encoding="utf-8"))
    damages = _entry_damages(entry)
    for how, text in damages.items():
        cached.write_text(text, encoding="utf-8")
        fake.replies = [plan_reply(valid_plan_input())]
        said: list[str] = []
        result = extract(said)
        assert not result.cached, how  # asked again, and answered
        assert any(str(cached) in line for line in said), (how, said)
    os.remove(cached)
    os.mkfifo(cached)  # a FIFO where the entry was: refused, never waited on
    fake.replies = [plan_reply(valid_plan_input())]
    said = []
    extract(said)
    assert any("named pipe" in line for line in said), said
    assert len(fake.messages()) == 2 + len(damages)
