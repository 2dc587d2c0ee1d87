"""Set-up checks run by `make setup`: find a Chromium and a CJK fallback font, install them with
apt-get when we are root on Debian/Ubuntu, otherwise stop and say exactly what to install.

Runs with the standard library only and does nothing (and downloads nothing) when all is present.
`locate_chrome` is the one Chromium lookup: the browser module uses it too, so set-up and the
browser check always agree on which browser exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

CHROME_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
)
CHROME_PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROME_ENV = "CHROME_PATH"
CJK_FONT_DIRS = ("/usr/share/fonts/truetype/wqy", "/usr/share/fonts/opentype/noto")
APT_PACKAGES = ("chromium", "fonts-wqy-microhei")
INSTALL_HINT = (
    "apt-get install chromium fonts-wqy-microhei (or set CHROME_PATH to a Chrome/Chromium)"
)


def is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def locate_chrome(candidates: Sequence[str] | None = None) -> str | None:
    """`CHROME_PATH` when set (None if it is not an executable), else the first executable
    candidate (default: the usual Debian/Ubuntu/Google paths, then PATH). `candidates=[]`
    means "no defaults" (tests)."""
    wanted = os.environ.get(CHROME_ENV)
    if wanted:
        return wanted if is_executable(wanted) else None
    names = CHROME_CANDIDATES if candidates is None else tuple(candidates)
    found = next((c for c in names if is_executable(c)), None)
    if found is None and candidates is None:
        found = next((w for n in CHROME_PATH_NAMES if (w := shutil.which(n))), None)
    return found


def has_cjk_font() -> bool:
    if any(Path(d).is_dir() and any(Path(d).rglob("*.tt[fc]")) for d in CJK_FONT_DIRS):
        return True
    return any(Path(d).is_dir() and any(Path(d).rglob("*CJK*")) for d in CJK_FONT_DIRS)


def cjk_font_family() -> str | None:
    """The family name fontconfig gives for Chinese text (e.g. 'WenQuanYi Micro Hei' or 'Noto Sans
    CJK SC'): whichever CJK font set-up found or installed. None without fontconfig or a CJK font."""
    fc_match = shutil.which("fc-match")
    if fc_match is None:
        return None
    try:
        out = subprocess.run(
            [fc_match, "-f", "%{family[0]}\n%{lang}", "sans-serif:lang=zh-cn"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    family, _, langs = out.partition("\n")
    return family.strip() or None if "zh-cn" in langs.split("|") else None


def can_apt() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def apt_install(packages: list[str]) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print(f"set-up: installing {' '.join(packages)} with apt-get", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", *packages],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def main() -> int:
    if os.environ.get("CHROME_PATH") and locate_chrome() is None:
        print(
            f"error: CHROME_PATH={os.environ['CHROME_PATH']} is not an executable; "
            f"fix it or unset it",
            file=sys.stderr,
        )
        return 3
    missing = []
    if locate_chrome() is None:
        missing.append("chromium")
    if not has_cjk_font():
        missing.append("fonts-wqy-microhei")
    if not missing:
        return 0
    if not can_apt():
        print(
            f"error: missing {', '.join(missing)}: install with `{INSTALL_HINT}` "
            f"(as root), then re-run",
            file=sys.stderr,
        )
        return 3
    try:
        apt_install(missing)
    except (subprocess.CalledProcessError, OSError) as err:
        print(
            f"error: apt-get could not install {' '.join(missing)} ({err}); "
            f"install them by hand: {INSTALL_HINT}",
            file=sys.stderr,
        )
        return 3
    if locate_chrome() is None:
        print(f"error: Chromium still not found after apt-get; {INSTALL_HINT}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
