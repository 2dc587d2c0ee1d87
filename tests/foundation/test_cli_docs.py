"""The CLI and its documentation agree: the README's command section is what the parser generates
(`make readme`), every command is in it, exit codes match."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from pipeline.cli import COMMANDS, build_parser, main
from pipeline.errors import EXIT_ENVIRONMENT, EXIT_INPUT, EXIT_LLM, EXIT_OK, EXIT_PROBLEMS
from pipeline.fields.serving.catalogue import build_catalogue as catalogue
from pipeline.plan.catalogue import TechniqueEntry
from pipeline.plan.model import parse_plan
from pipeline.plan.rules import plan_violations
from pipeline.readme_cli import END, STALE, START, readme_block, replace_block
from pipeline.readme_cli import main as readme_main

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)  # type: ignore[arg-type]


def test_every_command_has_the_function_that_runs_it():
    assert sorted(COMMANDS) == subcommands()


def test_every_command_is_documented():
    missing = [c for c in subcommands() if f"tujie {c}" not in README and f"/ `{c}`" not in README]
    assert missing == []


def test_readme_command_section_is_generated_from_the_parser():
    assert README.count(START) == 1 and README.count(END) == 1
    assert replace_block(README, readme_block(build_parser())) == README, STALE


def test_the_generated_section_follows_the_parser():
    parser = build_parser()
    block = readme_block(parser)
    for name in subcommands():
        assert f"#### `tujie {name}" in block and f"| `tujie {name}" in block
    assert "| `tujie build [SRC]` |" in block and "| `--until STAGE` |" in block
    check = block.split("#### `tujie check")[1].split("####")[0]
    assert "--allow-private" not in check  # suppressed in --help, so not documented either
    # A new option changes the section (so a README not regenerated fails the test above),
    # and help text stays table text: `|` escaped, `<name>` visible.
    action = next(a for a in parser._actions if a.dest == "command")
    action.choices["doctor"].add_argument(  # type: ignore[index]
        "--verbose", action="store_true", help="say more | less, per <item>"
    )
    changed = readme_block(parser)
    assert changed != block
    assert "| `--verbose` | say more \\| less, per &lt;item&gt; |" in changed


def test_readme_check_names_make_readme_and_the_rewrite_fixes_it(tmp_path, capsys):
    stale = tmp_path / "README.md"
    stale.write_text(README.replace("| `tujie schema` |", "| `tujie schemas` |"), "utf-8")
    assert readme_main(["--check", str(stale)]) == 1
    assert "run `make readme`" in capsys.readouterr().err
    assert readme_main([str(stale)]) == 0
    assert stale.read_text("utf-8") == README
    assert readme_main(["--check", str(stale)]) == 0
    unmarked = tmp_path / "OTHER.md"
    unmarked.write_text("# no markers\n", "utf-8")
    assert readme_main(["--check", str(unmarked)]) == 2


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
    real = catalogue()
    only = replace(real, techniques=(TechniqueEntry("continuous_batching", "static batching"),))
    found = [str(v) for v in plan_violations(plan, catalogue=only)]
    assert found and all("unknown technique" in v for v in found)
    assert all(v.startswith("concepts[") and ".technique" in v for v in found)
    mine = tuple(TechniqueEntry(c.technique, "-") for c in plan.concepts if c.technique)
    assert plan_violations(plan, catalogue=replace(real, techniques=mine)) == []


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
