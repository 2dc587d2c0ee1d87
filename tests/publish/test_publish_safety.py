"""Hostile configuration and input around publishing: the link gate without a link report,
reserved or odd page names, `--to` somewhere unusable, bounded history, and untrusted text printed
to the terminal only with its control characters escaped."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.config import page_name_from_folder, page_name_problem
from pipeline.errors import EXIT_INPUT, EXIT_OK, EXIT_PROBLEMS, PublishRefused
from pipeline.publish.local import publish
from pipeline.publish.site import version_order
from pipeline.review.page import write_review
from pipeline.terminal import json_for_terminal, terminal_safe
from tests.publish.conftest import folder_with_build

Build = Callable[..., Path]
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE = "\x1b]0;pwned\x07\x1b[2J"
HOSTILE_SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J"


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# --- 4. the link gate: no report, or an unreadable one, means unverified ---------------------


@pytest.mark.parametrize("damage", ["deleted", "garbage", "wrong shape"])
def test_publish_refuses_without_a_readable_link_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    src, out = folder_with_build(tmp_path)
    links = out / "page" / "links.json"
    if damage == "deleted":
        links.unlink()
    else:
        links.write_text("{not json" if damage == "garbage" else '{"results": 3}', encoding="utf-8")
    write_review(out / "page", out / "site" / "page")  # the review of the build as it is now
    assert main(["publish", str(src), "--out", str(out)]) == EXIT_PROBLEMS
    line = one_error_line(capsys)
    assert str(links) in line and "unverified" in line and "--allow-unverified" in line
    assert not (out / "site").exists()
    assert main(["publish", str(src), "--out", str(out), "--allow-unverified"]) == EXIT_OK


def test_publish_function_refuses_a_missing_link_report(build: Build, site: Path) -> None:
    first = build()
    (first / "links.json").unlink()
    with pytest.raises(PublishRefused, match="links.json not found"):
        publish(first, site, name="llm")


# --- 5. page names: plain slugs, never the site's own names -----------------------------------


@pytest.mark.parametrize(
    "name", ["site", "index.html", ".hidden", "Upper", "a_b", "a.b", "-lead", "x" * 65, ""]
)
def test_a_reserved_or_odd_publish_name_is_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "page.toml").write_text(f"[publish]\nname = {json.dumps(name)}\n", encoding="utf-8")
    assert main(["build", str(src), "--out", str(tmp_path / "out"), "--until", "ingest"]) == 2
    line = one_error_line(capsys)
    assert f"{src / 'page.toml'}: publish.name:" in line
    assert "plain slug" in line and "not 'site'" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["llm-inference", "llm-inference-en", "a", "9-lives"])
def test_plain_slugs_are_accepted(name: str) -> None:
    assert page_name_problem(name) is None


@given(st.text(max_size=80))
def test_a_name_derived_from_any_folder_name_is_a_usable_page_name(folder_name: str) -> None:
    derived = page_name_from_folder(folder_name)
    assert page_name_problem(derived) is None
    assert derived == page_name_from_folder(folder_name)  # stable across runs


def test_derived_names() -> None:
    assert page_name_from_folder("llm-inference") == "llm-inference"
    assert page_name_from_folder("My Notes_2") == "my-notes-2"
    assert page_name_from_folder("site").startswith("page-")
    assert page_name_from_folder("推理笔记").startswith("page-")


# --- 9. --to a file or an unwritable place: one line, exit 2 ----------------------------------


def test_publish_to_a_file_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = folder_with_build(tmp_path)
    target = tmp_path / "a-file"
    target.write_text("keep me", encoding="utf-8")
    for to in (target, target / "below"):
        assert main(["publish", str(src), "--out", str(out), "--to", str(to)]) == EXIT_INPUT
        line = one_error_line(capsys)
        assert str(to) in line and "--to" in line
    assert target.read_text(encoding="utf-8") == "keep me"


def test_publish_to_an_unwritable_place_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = folder_with_build(tmp_path)
    places = [Path("/proc/tujie-no-site-here")]  # proc refuses new folders, even to root
    if os.geteuid() != 0:  # root may write into a read-only folder
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        places.append(locked / "site")
    for to in places:
        assert main(["publish", str(src), "--out", str(out), "--to", str(to)]) == EXIT_INPUT
        line = one_error_line(capsys)
        assert str(to) in line and "writable folder" in line


# --- 12. bounded history ----------------------------------------------------------------------


def test_history_keeps_the_newest_versions_and_never_the_live_one(build: Build, site: Path) -> None:
    builds = [build(label=f"v{i}") for i in range(13)]  # same second: names get -2 ... -13
    versions = [publish(b, site, name="llm", keep=4).version for b in builds]
    assert len(set(versions)) == len(versions)  # a pruned name is never handed out again
    assert versions == sorted(versions, key=version_order)
    page = site / "llm"
    assert [p.name for p in (page / "versions").iterdir()] == [versions[-1]]
    assert sorted(p.name for p in (page / "history").iterdir()) == sorted(versions[-4:-1])
    assert "page v12" in (page / "index.html").read_text(encoding="utf-8")
    result = publish(build(label="only"), site, name="llm", keep=1)
    assert result.history_entry is None and not list((page / "history").iterdir())
    assert "page only" in (page / "index.html").read_text(encoding="utf-8")
    assert (page / "shots" / "light-1280.png").is_file()


def test_keep_comes_from_page_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = folder_with_build(tmp_path, "keep = 2\n")
    for _ in range(4):
        assert main(["publish", str(src), "--out", str(out)]) == EXIT_OK
    assert len(list((out / "site" / "page" / "history").iterdir())) == 1


@pytest.mark.parametrize("keep", ["0", "-3", '"5"', "1.5", "true"])
def test_keep_must_be_a_whole_number_of_at_least_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keep: str
) -> None:
    src, out = folder_with_build(tmp_path, f"keep = {keep}\n")
    assert main(["publish", str(src), "--out", str(out)]) == EXIT_INPUT
    line = one_error_line(capsys)
    assert f"{src / 'page.toml'}: publish.keep:" in line
    assert not (out / "site").exists()


# --- 6. untrusted text reaches the terminal escaped -------------------------------------------


def test_ingest_prints_an_article_title_with_its_controls_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "evil.md").write_text(
        f"---\ntitle: Evil {HOSTILE} title\n---\n\nSome words about batching requests.\n",
        encoding="utf-8",
    )
    assert main(["ingest", str(src), "--out", str(tmp_path / "out")]) == EXIT_OK
    out = capsys.readouterr().out
    assert not RAW_CONTROL.search(out)
    assert "Evil \\x1b]0;pwned\\x07" in out


def test_publish_never_prints_raw_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def hostile(plan: dict) -> None:
        plan["takeaway"] = f"{HOSTILE}{plan['takeaway']}"

    src, out = folder_with_build(tmp_path, plan_edit=hostile)
    code = main(["publish", str(src), "--out", str(out)])
    printed = capsys.readouterr()
    assert not RAW_CONTROL.search(printed.out + printed.err)
    if code == EXIT_OK:
        assert HOSTILE_SHOWN in printed.out
    else:  # the plan rules may reject control characters outright: also fine, also escaped
        assert code == EXIT_INPUT


def test_error_lines_escape_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = folder_with_build(tmp_path)
    target = tmp_path / f"file{HOSTILE}"
    target.write_text("", encoding="utf-8")
    assert main(["publish", str(src), "--out", str(out), "--to", str(target)]) == EXIT_INPUT
    line = one_error_line(capsys)
    assert not RAW_CONTROL.search(line) and HOSTILE_SHOWN in line


@given(st.text())
def test_terminal_safe_leaves_no_control_character(text: str) -> None:
    shown = terminal_safe(text)
    assert not RAW_CONTROL.search(shown)
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", shown)
    plain = "\\" not in text and "://" not in text  # a URL's credentials are masked
    if not RAW_CONTROL.search(text) and plain and not re.search("[\u202a-\u2069]", text):
        assert shown == text


@given(st.dictionaries(st.text(), st.text()).filter(lambda d: "://" not in json.dumps(d)))
def test_json_for_terminal_parses_back_to_the_same_value(data: dict[str, str]) -> None:
    text = json_for_terminal(data)
    assert json.loads(text) == data
    assert not RAW_CONTROL.search(text.replace("\n", ""))
