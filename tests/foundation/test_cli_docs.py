"""The CLI and its documentation agree: every command is in the README, exit codes match."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.artifacts.sim import SweepView
from pipeline.build.stages import technique_violations
from pipeline.cli import build_parser, main
from pipeline.errors import EXIT_ENVIRONMENT, EXIT_INPUT, EXIT_LLM, EXIT_OK, EXIT_PROBLEMS
from pipeline.plan.model import parse_plan

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)  # type: ignore[arg-type]


def test_every_command_is_documented():
    missing = [c for c in subcommands() if f"tujie {c}" not in README and f"/ `{c}`" not in README]
    assert missing == []


def test_readme_exit_code_table_matches_the_code():
    rows = dict(re.findall(r"^\| (\d) \| (.+?) \|$", README, flags=re.M))
    assert set(rows) == {
        str(c) for c in (EXIT_OK, EXIT_PROBLEMS, EXIT_INPUT, EXIT_ENVIRONMENT, EXIT_LLM)
    }
    assert "bad input" in rows[str(EXIT_INPUT)]
    assert "missing" in rows[str(EXIT_ENVIRONMENT)]


def test_usage_errors_exit_2(capsys):
    assert main(["build", "--until", "nowhere"]) == EXIT_INPUT
    assert main([]) == EXIT_INPUT
    assert main(["--help"]) == EXIT_OK
    assert "Exit codes" in capsys.readouterr().out


def test_unknown_ruler_technique_is_a_plan_error():
    plan = parse_plan(
        __import__("json").loads((REPO / "examples/llm-inference/plan.json").read_text("utf-8"))
    )
    sweep = {"techniques": [{"id": "continuous_batching"}]}
    found = [str(v) for v in technique_violations(plan, SweepView.from_json(sweep))]
    assert found and all("unknown technique" in v for v in found)
    assert any(v.startswith("concepts[") and ".technique" in v for v in found)
    full = {"techniques": [{"id": c.technique} for c in plan.concepts if c.technique]}
    assert technique_violations(plan, SweepView.from_json(full)) == []


def test_atomic_write_leaves_no_temp_and_a_readable_file(tmp_path):
    import stat

    from pipeline.atomic import write_atomic

    target = tmp_path / "page" / "index.html"
    write_atomic(target, "<p>hi</p>")
    write_atomic(target, b"<p>again</p>")
    assert target.read_bytes() == b"<p>again</p>"
    assert list(target.parent.iterdir()) == [target]
    mode = stat.S_IMODE(target.stat().st_mode)
    assert mode & stat.S_IROTH, oct(mode)  # a published page must be readable by a web server
    assert not mode & stat.S_IWOTH
