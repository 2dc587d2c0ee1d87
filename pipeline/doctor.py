"""`tujie doctor`: what this machine has for `tujie build`, and the fix for what it lacks.

One `Finding` per thing tujie uses: Chromium, the CJK fallback font, the two handwriting fonts
and axe-core (in the npm cache, or fetched on first use), the API key (only whether it is set:
its value is never read into a finding), the model, the cache and output folders, and whether
tujie runs from a checkout or an installed package. Reads, never installs or downloads.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline import npm
from pipeline.envsetup import (
    APT_PACKAGES,
    CHROME_ENV,
    INSTALL_HINT,
    cjk_font_family,
    is_executable,
    locate_chrome,
)
from pipeline.paths import CACHE_ENV, PACKAGE_DIR, REPO_ROOT, cache_dir, in_checkout

CHROME_VERSION_TIMEOUT_S = 20.0
API_KEY_ENV = "ANTHROPIC_API_KEY"
MODEL_ENV = "TUJIE_MODEL"
OUTPUT_ENV = "TUJIE_OUTPUT"
CJK_INSTALL = f"apt-get install {APT_PACKAGES[1]} (or fonts-noto-cjk), as root"


@dataclass(frozen=True)
class Finding:
    """One thing tujie uses: present or not, what was found, and the fix when it is missing.
    `required`: `tujie build` of a folder that ships its plan.json cannot run without it."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


@dataclass(frozen=True)
class Report:
    findings: list[Finding]

    @property
    def missing(self) -> list[Finding]:
        """What `tujie build` needs and this machine lacks."""
        return [f for f in self.findings if f.required and not f.ok]

    def as_json(self) -> dict[str, object]:
        return {"ok": not self.missing, "findings": [asdict(f) for f in self.findings]}


def diagnose(out_root: Path) -> Report:
    """Every finding, in the order `tujie doctor` prints them."""
    return Report(
        [
            chromium(),
            cjk_font(),
            *npm_packages(),
            api_key(),
            model(),
            cache_folder(),
            output_folder(out_root),
            installation(),
        ]
    )


def chromium() -> Finding:
    wanted = os.environ.get(CHROME_ENV)
    if wanted and not is_executable(wanted):
        return Finding(
            "chromium",
            False,
            f"{CHROME_ENV}={wanted} is not an executable",
            f"fix or unset {CHROME_ENV}, or install one: {INSTALL_HINT}",
        )
    found = locate_chrome()
    if found is None:
        return Finding("chromium", False, "no Chromium or Chrome found", INSTALL_HINT)
    return Finding("chromium", True, f"{found} ({chrome_version(found)})")


def chrome_version(path: str) -> str:
    """What `chromium --version` says, or why it said nothing."""
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=CHROME_VERSION_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as err:
        return f"version unknown: {type(err).__name__}"
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else "version unknown"


def cjk_font() -> Finding:
    family = cjk_font_family()
    if family is None:
        return Finding(
            "CJK font",
            False,
            "fontconfig finds no font for Chinese text (the browser check needs one)",
            CJK_INSTALL,
        )
    return Finding("CJK font", True, family)


def npm_packages() -> list[Finding]:
    """The two handwriting fonts and axe-core: in the cache with their versions, or fetched from
    the npm registry on first use (fine, when the network and the cache folder allow it)."""
    from pipeline.fonts import FONT_PACKAGES

    packages = [(family, spec[0]) for family, spec in FONT_PACKAGES.items()]
    packages.append(("axe-core", "axe-core"))
    findings = []
    for name, package in packages:
        version = npm.installed_version(package)
        if version is not None:
            detail = f"{package}@{version} in {npm.npm_dir()}"
            findings.append(Finding(name, True, detail))
        else:
            detail = (
                f"{package}@{npm.PINNED[package]} is not in {npm.npm_dir()} yet: "
                f"it will be fetched from the npm registry on first use"
            )
            fix = f"to fetch it now: {npm.install_hint(package)}"
            findings.append(Finding(name, True, detail, fix))
    return findings


def api_key() -> Finding:
    """Whether the key is set; its value never leaves this function."""
    if os.environ.get(API_KEY_ENV, "").strip():
        return Finding("API key", True, f"{API_KEY_ENV} is set", required=False)
    return Finding(
        "API key",
        False,
        f"{API_KEY_ENV} is not set: only `tujie plan`, and a folder without plan.json, need it",
        f"export {API_KEY_ENV}=<your Anthropic API key>",
        required=False,
    )


def model() -> Finding:
    from pipeline.plan.llm import DEFAULT_MODEL

    chosen = os.environ.get(MODEL_ENV, "").strip()
    if chosen:
        return Finding("model", True, f"{chosen} ({MODEL_ENV})", required=False)
    return Finding(
        "model",
        True,
        f"{DEFAULT_MODEL} (the default; {MODEL_ENV} chooses another)",
        required=False,
    )


def cache_folder() -> Finding:
    path = cache_dir()
    if os.environ.get(CACHE_ENV):
        origin = CACHE_ENV
    elif in_checkout():
        origin = "the checkout's .cache/"
    else:
        origin = "the per-user cache folder"
    if not writable(path):
        return Finding(
            "cache",
            False,
            f"{path} ({origin}) cannot be written (fonts, font subsets, axe-core go there)",
            f"make it writable, or set {CACHE_ENV} to a folder you can write",
        )
    return Finding("cache", True, f"{path} ({origin})")


def output_folder(out_root: Path) -> Finding:
    path = out_root.resolve()
    if not writable(path):
        return Finding(
            "output",
            False,
            f"{path} cannot be written",
            f"give --out a folder you can write, or set {OUTPUT_ENV}",
        )
    return Finding("output", True, str(path))


def installation() -> Finding:
    """A checkout (`make page`) or an installed package, and whether its templates and prompts
    are where tujie reads them."""
    from pipeline.paths import prompts_dir, templates_dir

    where = f"checkout at {REPO_ROOT}" if in_checkout() else f"installed package at {PACKAGE_DIR}"
    absent = [str(d) for d in (templates_dir(), prompts_dir()) if not d.is_dir()]
    if absent:
        return Finding(
            "install",
            False,
            f"{where}, but {' and '.join(absent)} not found",
            "reinstall tujie (the wheel carries templates/ and prompts/ as package data)",
        )
    return Finding("install", True, where)


def writable(path: Path) -> bool:
    """Whether `path` is, or could be made as, a folder this process can write to."""
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)
