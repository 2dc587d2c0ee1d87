"""Make `import sim` work from a fresh checkout (the repo root may not be installed yet)."""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import sim  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
