"""The suite holds with either CJK font set-up accepts (issue 10.13): with fontconfig limited to
Noto CJK only, or to WenQuanYi only, the CJK family is found and a clean page passes the check
(the old test named WenQuanYi and failed with `font-fallback` on a Noto-only machine).

CI installs both packages, so both variants run there; elsewhere the installed ones run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.check.browser import Chrome
from pipeline.check.run import check_page
from pipeline.envsetup import cjk_font_family
from tests.browser.conftest import page_html
from tests.browser.test_check_broken_pages import clean_body

pytestmark = pytest.mark.browser

LATIN_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
VARIANTS = {
    "noto-only": ("/usr/share/fonts/opentype/noto", "Noto Sans CJK SC", "fonts-noto-cjk"),
    "wqy-only": ("/usr/share/fonts/truetype/wqy", "WenQuanYi Micro Hei", "fonts-wqy-microhei"),
}


def _only(font_dir: str, tmp_path: Path) -> Path:
    dirs = "".join(f"<dir>{d}</dir>" for d in (font_dir, *LATIN_DIRS) if Path(d).is_dir())
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">'
        f"<fontconfig>{dirs}<cachedir>{tmp_path / 'fc-cache'}</cachedir>"
        '<include ignore_missing="yes">/etc/fonts/conf.d</include></fontconfig>',
        encoding="utf-8",
    )
    return conf


# The variants this machine can run: every CJK font set-up accepts that is installed here.
INSTALLED = sorted(v for v, (font_dir, _f, _p) in VARIANTS.items() if Path(font_dir).is_dir())


def test_the_machine_has_the_fonts_to_test() -> None:
    """Set-up installs at least one CJK font; CI installs both (.ci/run), so neither variant
    goes untested there."""
    assert INSTALLED, "no CJK font: run `make setup`"
    if os.environ.get("CI"):
        missing = [VARIANTS[v][2] for v in VARIANTS if v not in INSTALLED]
        assert not missing, f"CI must install {', '.join(missing)} (.ci/run)"


@pytest.mark.parametrize("variant", INSTALLED)
def test_clean_page_passes_with_only_one_cjk_font(
    variant: str, tmp_path: Path, write_page, monkeypatch: pytest.MonkeyPatch
) -> None:
    font_dir, family, _package = VARIANTS[variant]
    monkeypatch.setenv("FONTCONFIG_FILE", str(_only(font_dir, tmp_path)))
    assert cjk_font_family() == family
    with Chrome() as chrome:
        report = check_page(
            write_page(page_html(clean_body(family))), tmp_path / "out", chrome=chrome
        )
    assert report.problems == []
