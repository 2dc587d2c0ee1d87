"""Credentials in web addresses. A URL can carry `user:password@` (a reading list copied from an
address bar, the canonical link of a saved intranet page, an `ANTHROPIC_BASE_URL` behind a
proxy); they never reach the page, an artifact or the terminal. `without_credentials` drops them
from an address tujie keeps; `mask_credentials` hides them wherever a URL is printed (the CLI's
`terminal_safe` applies it to every line it prints).
"""

from __future__ import annotations

import re

# scheme://userinfo@ at the start of an address: the userinfo is everything up to the last `@`
# before the authority ends (`/`, `?`, `#`), so a password holding a raw `@` is covered whole.
_LEADING_CREDENTIALS = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/?#]*@", re.IGNORECASE)
# The same inside any text: the address ends at ASCII whitespace or a quote as well (not at
# every Unicode space: a password holding U+2028 stopped the match and half of it was printed).
_CREDENTIALS_IN_TEXT = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^ \t\r\n\f\v/?#\"'<>]*@",
                                  re.IGNORECASE)
MASK = "***"


def has_credentials(url: str) -> bool:
    """Whether `url` names a user or password before its host (`https://user:pw@host/`)."""
    return _LEADING_CREDENTIALS.match(url.strip()) is not None


def without_credentials(url: str) -> str:
    """`url` with its `user:password@` removed (unchanged when it has none)."""
    return _LEADING_CREDENTIALS.sub(r"\1", url.strip(), count=1) if has_credentials(url) else url


def mask_credentials(text: str) -> str:
    """`text` with the credentials of every URL in it replaced by `***`
    (`https://***@host/`): what may be printed or stored of an address that carried some."""
    return _CREDENTIALS_IN_TEXT.sub(rf"\1{MASK}@", text)
