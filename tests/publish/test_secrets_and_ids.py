"""Issue 22, secrets and ids: a URL's `user:password@` never reaches the page, an artifact or the
terminal (stripped from the sources, refused in the plan and in `publish.base_url`, masked
wherever a URL is printed or a server's answer is stored); `page.toml` naming a concept the plan
does not have is an error naming it; and a page name is matched whole (`fullmatch`), so a name
ending in a newline is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.artifacts.sources import Corpus, ReadingListEntry
from pipeline.config import page_name_problem
from pipeline.links.check import LinkSettings, LinkTarget, check_links, write_report
from pipeline.render.route import safe_url
from pipeline.terminal import terminal_safe
from pipeline.urls import has_credentials, mask_credentials, without_credentials
from tests.links.linksites import html, redirect, start_site
from tests.tujie_process import REPO, one_error_line, tujie

EXAMPLE = REPO / "examples" / "llm-inference"
NAME = "llm-inference"
SECRET = "hunter2"
ROUTE_URL = "https://www.aleksagordic.com/blog/vllm"  # route[0] of the example's plan
WITH_SECRET = ROUTE_URL.replace("https://", f"https://reader:{SECRET}@")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    src = tmp_path / "notes"
    shutil.copytree(EXAMPLE, src)
    return src


def _everything_written(out: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file())


def test_credentials_in_the_reading_list_and_a_canonical_url_never_reach_the_page(
    folder: Path, tmp_path: Path
) -> None:
    listing = folder / "reading-list.md"
    text = listing.read_text(encoding="utf-8").replace(ROUTE_URL, WITH_SECRET)
    text = text.replace("https://www.usenix.org/", f"https://u:{SECRET}@www.usenix.org/")
    listing.write_text(text, encoding="utf-8")
    (folder / "saved.html").write_text(
        f'<!doctype html><html><head><title>Saved page</title><link rel="canonical" '
        f'href="https://me:{SECRET}@example.org/saved"></head><body><h1>Saved page</h1>'
        "<p>Batching keeps the GPU busy with many requests at once.</p></body></html>",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    built = tujie("build", str(folder), "--out", str(out), "--until", "render")
    assert built.returncode == 0, built.stderr
    assert SECRET.encode() not in _everything_written(out)
    page = (out / NAME / "index.html").read_text(encoding="utf-8")
    assert f'href="{ROUTE_URL}"' in page  # the link stays, without its credentials
    sources = json.loads((out / NAME / "sources.json").read_text(encoding="utf-8"))
    saved = next(s for s in sources["sources"] if s["path"] == "saved.html")
    assert saved["url"] == "https://example.org/saved"
    shown = tujie("ingest", str(folder), "--out", str(out))
    assert shown.returncode == 0 and SECRET not in shown.stdout + shown.stderr


def test_a_plan_url_with_credentials_is_refused_without_printing_them(
    folder: Path, tmp_path: Path
) -> None:
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    plan["route"][0]["url"] = WITH_SECRET
    (folder / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    result = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert result.returncode == 2, result.stderr
    line = one_error_line(result.stderr)
    assert "route[0].url" in line and "credentials" in line and SECRET not in line


def test_a_base_url_with_credentials_is_a_config_error(folder: Path, tmp_path: Path) -> None:
    toml = folder / "page.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8") + f'base_url = "https://me:{SECRET}@example.org/n"\n',
        encoding="utf-8",
    )
    result = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "ingest")
    assert result.returncode == 2, result.stderr
    line = one_error_line(result.stderr)
    assert "publish.base_url" in line and "credentials" in line and SECRET not in line


def test_a_redirect_to_an_address_with_credentials_is_stored_masked(tmp_path: Path) -> None:
    site, stop = start_site()
    try:
        site.routes["/old"] = redirect(f"http://u:{SECRET}@127.0.0.1:{site.port}/new")
        site.routes["/new"] = html("A page")
        corpus = Corpus(
            folder="t", reading_list=[ReadingListEntry(title="A page", url=site.url("/old"))]
        )
        target = LinkTarget(url=site.url("/old"), claimed_title="A page", where="route[0]")
        fast = LinkSettings(backoff_base=0.01, per_host_spacing=0.0, read_timeout=2.0)
        report = check_links([target], corpus, allow_private=True, settings=fast)
    finally:
        stop()
    result = report.results[0]
    assert result.status == "refused" and "credentials" in result.evidence
    assert [s.path for s in site.seen] == ["/old"]  # the address with credentials never asked
    write_report(report, tmp_path / "links.json")
    stored = (tmp_path / "links.json").read_text(encoding="utf-8")
    assert SECRET not in stored and "http://***@127.0.0.1" in stored


USERINFO = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="/?#\"'<>@\\"
    ),
    min_size=1,
    max_size=30,
)


@given(user=USERINFO, password=USERINFO, before=st.sampled_from(["", "see ", "(", '"']))
def test_credentials_are_masked_wherever_a_url_is_printed(
    user: str, password: str, before: str
) -> None:
    url = f"https://{user}:{password}@host.example/path?q=1"
    line = f"{before}{url} and more"
    masked = mask_credentials(line)
    assert masked == f"{before}https://***@host.example/path?q=1 and more"
    assert terminal_safe(line) == terminal_safe(masked)
    assert has_credentials(url) and without_credentials(url) == "https://host.example/path?q=1"
    assert safe_url(url) == "https://host.example/path?q=1"


@given(st.text())
def test_text_without_an_address_is_left_alone(text: str) -> None:
    if "://" not in text:
        assert mask_credentials(text) == text


@pytest.mark.parametrize(
    "url", ["https://example.org/a@b", "https://example.org/?to=a@b", "mailto:a@b"]
)
def test_an_at_sign_after_the_host_is_no_credential(url: str) -> None:
    assert not has_credentials(url) and mask_credentials(url) == url == without_credentials(url)


# --- page.toml's ids and the page name --------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "key"),
    [('[progress]\nkv_cahce = "learned"\n', "progress"), ('stuck = ["no_such_idea"]\n', "stuck")],
)
def test_page_toml_naming_an_unknown_concept_is_an_error_naming_it(
    folder: Path, tmp_path: Path, setting: str, key: str
) -> None:
    (folder / "page.toml").write_text(
        f'lang = "zh"\n{setting}[publish]\nname = "{NAME}"\n', encoding="utf-8"
    )
    result = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "plan")
    assert result.returncode == 2, result.stderr
    line = one_error_line(result.stderr)
    unknown = "kv_cahce" if key == "progress" else "no_such_idea"
    assert "page.toml" in line and f"{key}:" in line and f"'{unknown}'" in line
    assert "kv_cache" in line  # the concepts it could have meant are listed


@pytest.mark.parametrize("name", ["llm\n", "llm\r\n", "\nllm", "llm \n"])
def test_a_page_name_is_matched_whole(folder: Path, tmp_path: Path, name: str) -> None:
    assert page_name_problem(name) is not None
    (folder / "page.toml").write_text(f"[publish]\nname = {json.dumps(name)}\n", encoding="utf-8")
    result = tujie("build", str(folder), "--out", str(tmp_path / "out"), "--until", "ingest")
    assert result.returncode == 2, result.stderr
    assert "publish.name" in one_error_line(result.stderr)
    assert not (tmp_path / "out").exists()
