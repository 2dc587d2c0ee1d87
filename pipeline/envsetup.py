"""Set-up checks run by `make setup`: find a Chromium and a CJK fallback font, install them with
apt-get when we are root on Debian/Ubuntu, otherwise stop and say exactly what to install.

Runs with the standard library only and does nothing (and downloads nothing) when all is present.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CHROME_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
)
CJK_FONT_DIRS = ("/usr/share/fonts/truetype/wqy", "/usr/share/fonts/opentype/noto")
APT_PACKAGES = ("chromium", "fonts-wqy-microhei")
INSTALL_HINT = (
    "apt-get install chromium fonts-wqy-microhei (or set CHROME_PATH to a Chrome/Chromium)"
)


def find_chrome() -> str | None:
    env = os.environ.get("CHROME_PATH")
    if env:
        return env if os.access(env, os.X_OK) else None
    return next((c for c in CHROME_CANDIDATES if os.access(c, os.X_OK)), None)


def has_cjk_font() -> bool:
    if any(Path(d).is_dir() and any(Path(d).rglob("*.tt[fc]")) for d in CJK_FONT_DIRS):
        return True
    return any(Path(d).is_dir() and any(Path(d).rglob("*CJK*")) for d in CJK_FONT_DIRS)


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
    if os.environ.get("CHROME_PATH") and find_chrome() is None:
        print(
            f"error: CHROME_PATH={os.environ['CHROME_PATH']} is not an executable; "
            f"fix it or unset it",
            file=sys.stderr,
        )
        return 3
    missing = []
    if find_chrome() is None:
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
    if find_chrome() is None:
        print(f"error: Chromium still not found after apt-get; {INSTALL_HINT}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
