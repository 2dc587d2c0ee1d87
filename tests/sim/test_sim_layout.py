"""The engine knows nothing of its users: no module outside `sim/presets/` (and the command
line that offers `--preset`) imports `sim.presets`, and nothing in `sim/` imports `pipeline`."""

from __future__ import annotations

import ast
from pathlib import Path

SIM = Path(__file__).resolve().parents[2] / "sim"
# The command line offers `--preset` and `presets`; it is a user of the presets, not the engine.
PRESET_USERS = {"cli.py", "__main__.py"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _engine_modules() -> list[Path]:
    return [
        p
        for p in sorted(SIM.rglob("*.py"))
        if "presets" not in p.relative_to(SIM).parts and p.name not in PRESET_USERS
    ]


def test_engine_never_imports_presets() -> None:
    modules = _engine_modules()
    assert len(modules) > 20 and SIM / "engine.py" in modules
    offenders = {
        str(p.relative_to(SIM)): sorted(m for m in _imports(p) if m.startswith("sim.presets"))
        for p in modules
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_sim_never_imports_pipeline() -> None:
    offenders = [
        str(p.relative_to(SIM))
        for p in SIM.rglob("*.py")
        if any(m == "pipeline" or m.startswith("pipeline.") for m in _imports(p))
    ]
    assert offenders == []


def test_page_presets_live_in_presets_package() -> None:
    for name in ("cast.py", "scenarios.py", "sweep.py"):
        assert (SIM / "presets" / name).is_file()
        assert not (SIM / name).exists()
