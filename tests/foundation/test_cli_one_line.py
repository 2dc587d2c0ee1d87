"""Issue 22: every failure that reaches the CLI is one line and an exit code, never a traceback.
The boundary's table (`pipeline.errors.failure_line`) covers every exception class; the real
`tujie` is driven through the cases the issue names (a 100,000-deep plan, knobs of NaN, Infinity
and 1e400, a bad port or a password in `ANTHROPIC_BASE_URL`, a damaged cached model reply, a full
cache disk); Ctrl-C is `test_interrupt.py`'s, a branch's bad stamp `test_hardening_publish.py`'s.
Where another part of the issue may make a case succeed, the test asks only that a failure be
one line."""

from __future__ import annotations

import errno
import importlib
import inspect
import json
import pkgutil
import shutil
import subprocess
from pathlib import Path

import pytest

import pipeline
from pipeline import errors
from pipeline.cli import _fail
from pipeline.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    LLMUsage,
    PlanError,
    PlanRepairFailed,
    TujieError,
    Violation,
    failure_line,
)
from tests.llm.fake_anthropic import TEST_KEY, FakeAnthropic, error_reply, plan_reply
from tests.llm.held_fake import shipped_answer
from tests.tujie_process import COMMAND, REPO, clean_env, one_error_line, tujie

EXAMPLE = REPO / "examples" / "llm-inference"


def every_error_class() -> list[type[TujieError]]:
    """Every class of the tree, wherever in `pipeline` it is defined (all modules imported)."""
    for module in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        importlib.import_module(module.name)
    found, todo = [], [TujieError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return sorted(found, key=lambda c: c.__qualname__)


def an_instance(cls: type[TujieError]) -> TujieError:
    if issubclass(cls, PlanRepairFailed):
        return cls([Violation("takeaway", "too long")], 3, LLMUsage(), None)
    if issubclass(cls, PlanError):
        return cls("plan.json", [Violation("takeaway", "too long")])
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in params if p.kind in positional and p.default is p.empty]
    return cls("something\nwent wrong\tover lines", *[None] * max(0, len(required) - 1))


@pytest.mark.parametrize("cls", every_error_class(), ids=lambda c: c.__name__)
def test_every_error_class_is_one_line_with_its_exit_code(cls: type[TujieError]) -> None:
    err = an_instance(cls)
    line, code = failure_line(err)
    assert "\n" not in line and line.strip() and code == cls.exit_code


@pytest.mark.parametrize(
    ("err", "code", "words"),
    [
        (KeyboardInterrupt(), EXIT_INTERRUPTED, "interrupted"),
        (OSError(errno.ENOSPC, "No space left on device", "/cache/x"), 3, "no space left"),
        (OSError(errno.EDQUOT, "Disk quota exceeded", "/home/u/x"), 3, "no space left"),
        (PermissionError(errno.EACCES, "Permission denied", "/out/x"), 2, "/out/x"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory"), 2, "No such file"),
        (RecursionError("maximum recursion depth exceeded"), 2, "nested too deeply"),
        (MemoryError(), 3, "memory"),
        (ValueError("a bug\nsomewhere"), EXIT_INTERNAL, "internal error (ValueError: a bug"),
        (AttributeError(), EXIT_INTERNAL, "TUJIE_DEBUG=1"),
    ],
)
def test_anything_else_is_one_line_too(err: BaseException, code: int, words: str) -> None:
    line, exit_code = failure_line(err)
    assert "\n" not in line and words in line and exit_code == code


def test_the_boundary_prints_one_line_and_the_traceback_only_when_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        raise ValueError("unexpected")
    except ValueError as raised:
        err = raised
    assert _fail(err, json_mode=False) == EXIT_INTERNAL
    printed = capsys.readouterr().err
    assert one_error_line(printed).startswith("error: internal error (ValueError: unexpected)")
    monkeypatch.setenv("TUJIE_DEBUG", "1")
    assert _fail(err, json_mode=False) == EXIT_INTERNAL
    assert "Traceback" in capsys.readouterr().err
    assert errors.EXIT_INTERNAL == 70


def _folder(tmp_path: Path) -> Path:
    src = tmp_path / "notes"
    shutil.copytree(EXAMPLE, src)
    return src


def _one_line_if_it_fails(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    if result.returncode != 0:
        one_error_line(result.stderr)


def test_a_100000_deep_plan_is_one_line(tmp_path: Path) -> None:
    src = _folder(tmp_path)
    depth = 100_000
    (src / "plan.json").write_text('{"concepts": ' + "[" * depth + "]" * depth + "}")
    result = tujie("build", str(src), "--out", str(tmp_path / "out"), "--until", "plan")
    assert result.returncode == 2, result.stderr
    assert "plan.json" in one_error_line(result.stderr) or "nested" in result.stderr


@pytest.mark.parametrize("knob", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_knob_that_is_not_a_number_is_never_a_traceback(tmp_path: Path, knob: str) -> None:
    src = _folder(tmp_path)
    plan = json.loads((src / "plan.json").read_text(encoding="utf-8"))
    fix = next(c["fix"] for c in plan["concepts"] if c["fix"].get("scenario") == "kv_alloc")
    fix["knobs"] = [{"name": "block_size", "value": 123456789}]
    text = json.dumps(plan, ensure_ascii=False).replace("123456789", knob)
    (src / "plan.json").write_text(text, encoding="utf-8")
    result = tujie("build", str(src), "--out", str(tmp_path / "out"), "--until", "sim")
    _one_line_if_it_fails(result)
    assert result.returncode != 0


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_bad_port_in_the_base_url_is_one_line(tmp_path: Path, port: str) -> None:
    env = {"ANTHROPIC_API_KEY": TEST_KEY, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}
    result = tujie("plan", str(EXAMPLE), "--out", str(tmp_path / "out"), env=env, timeout=300)
    assert result.returncode != 0
    one_error_line(result.stderr)
    assert TEST_KEY not in result.stderr + result.stdout


def test_the_password_of_the_base_url_is_masked_in_the_error_line(tmp_path: Path) -> None:
    with FakeAnthropic() as fake:
        fake.replies = [error_reply(401, "authentication_error", "invalid x-api-key")]
        host = fake.url.removeprefix("http://")
        env = {"ANTHROPIC_API_KEY": TEST_KEY, "ANTHROPIC_BASE_URL": f"http://me:hunter2@{host}"}
        result = tujie("plan", str(EXAMPLE), "--out", str(tmp_path / "out"), env=env)
    assert result.returncode == 4, result.stderr
    line = one_error_line(result.stderr)
    assert "hunter2" not in result.stderr + result.stdout and "http://***@" in line
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes(), path


def test_a_damaged_cached_model_reply_is_never_a_traceback(tmp_path: Path) -> None:
    answer = shipped_answer()
    out = tmp_path / "out"
    with FakeAnthropic() as fake:
        env = {"ANTHROPIC_API_KEY": TEST_KEY, "ANTHROPIC_BASE_URL": fake.url}
        fake.replies = [plan_reply(answer)]
        assert tujie("plan", str(EXAMPLE), "--out", str(out), env=env).returncode == 0
        cached = sorted(out.rglob("llm/*.json"))
        assert cached
        for damage in ([5], [{"type": "tool_use", "input": "x"}], "text", None):
            for entry in cached:
                data = json.loads(entry.read_text(encoding="utf-8"))
                data["reply"]["content"] = damage
                entry.write_text(json.dumps(data), encoding="utf-8")
            fake.replies = [plan_reply(answer)]
            _one_line_if_it_fails(tujie("plan", str(EXAMPLE), "--out", str(out), env=env))


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False, timeout=30)
    return probe.returncode == 0


@pytest.mark.browser
@pytest.mark.skipif(not _unshare_works(), reason="needs `unshare -m` to mount a small disk")
def test_a_full_cache_disk_is_named_as_such(tmp_path: Path) -> None:
    """The cache on a disk with no space left: the check's screenshot bands cannot be stored.
    That is a full disk (exit 3, the file named), not "Chromium crashed"."""
    cache, out = tmp_path / "cache", tmp_path / "out"
    cache.mkdir()
    here = REPO / ".cache"
    script = (
        f"mount -t tmpfs -o size=48m tmpfs {cache} && "
        f"cp -r {here / 'npm'} {here / 'fonts'} {here / 'sim'} {cache}/ && "
        f"(dd if=/dev/zero of={cache}/filler bs=64k 2>/dev/null; true) && "
        f'exec "$@"'
    )
    build = ["build", str(EXAMPLE), "--out", str(out), "--until", "check"]
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *COMMAND, *build],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=clean_env({"TUJIE_CACHE": str(cache)}),
        timeout=600,
        check=False,
    )
    assert result.returncode == 3, result.stderr
    line = one_error_line(result.stderr)
    assert "no space left" in line and str(cache) in line and "Chromium" not in line
