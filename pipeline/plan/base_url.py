"""`ANTHROPIC_BASE_URL` (or a base URL given in code) checked before the SDK sees it, and shown
with its password masked: a bad port or scheme is one line naming the setting, not a traceback
from the SDK's URL parser, and a proxy's `user:password@` never reaches the terminal."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pipeline.errors import EnvironmentMissing

BASE_URL_ENV = "ANTHROPIC_BASE_URL"
# user:password@ in a URL: the password is never printed.
URL_PASSWORD = re.compile(r"(?<=://)([^/?#@:\s]*):[^/?#\s]*@")
BASE_URL_FIX = (
    f"set {BASE_URL_ENV} to the API's address, e.g. https://api.anthropic.com, or unset it"
)


def mask_password(url: str) -> str:
    """`url` with the password of its `user:password@` part (if any) replaced by `***`."""
    return URL_PASSWORD.sub(lambda m: f"{m.group(1)}:***@", url)


def check_base_url(url: str, named: str) -> None:
    """Refuse a base URL the SDK could not use, naming the setting (password masked):
    `EnvironmentMissing`, exit 3, like a missing key."""
    shown = mask_password(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check: "Port out of range", ...
    except ValueError as err:
        raise EnvironmentMissing(f"{named} = {shown}: {err}; {BASE_URL_FIX}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EnvironmentMissing(
            f"{named} = {shown}: not an http(s) address with a host; {BASE_URL_FIX}"
        )
