"""The dependency rules of PIPELINE.md, held as data and checked against the code's own imports
(every `import` and `from … import`, at module level or inside functions): no import cycle among
the modules of `pipeline/` and `sim/`, and no forbidden edge. A new edge that breaks a rule fails
here with the importing module, the imported one and the rule."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("pipeline", "sim")

# (importer prefix, imported prefix, why it is forbidden). A prefix matches the module itself and
# everything below it.
FORBIDDEN: list[tuple[str, str, str]] = [
    ("sim", "pipeline", "sim/ is a library and a tool of its own"),
    ("pipeline.draw", "sim", "drawings receive typed trace views, never the simulator"),
    ("pipeline.draw", "pipeline.simulate", "drawings know nothing of the stages"),
    ("pipeline.draw", "pipeline.build", "drawings know nothing of the stages"),
    ("pipeline.draw", "pipeline.ingest", "drawings know nothing of the stages"),
    ("pipeline.draw", "pipeline.links", "drawings know nothing of the network"),
    ("pipeline.draw", "pipeline.check", "drawings know nothing of the browser"),
    ("pipeline.draw", "pipeline.render", "the renderer uses the drawings, not the other way"),
    ("pipeline.draw", "pipeline.review", "drawings know nothing of the stages"),
    ("pipeline.draw", "pipeline.publish", "drawings know nothing of the stages"),
    ("pipeline.draw", "pipeline.plan.rules", "drawings read the typed plan, not its rules"),
    ("pipeline.draw", "pipeline.plan.extract", "drawings know nothing of the LLM"),
    ("pipeline.draw", "pipeline.plan.llm", "drawings know nothing of the LLM"),
    ("pipeline.plan.model", "pipeline.build", "the plan model imports no stage"),
    ("pipeline.plan.model", "pipeline.links", "the plan model imports no stage"),
    ("pipeline.plan.model", "pipeline.render", "the plan model imports no stage"),
    ("pipeline.plan.model", "pipeline.simulate", "the plan model imports no stage"),
    ("pipeline.plan.model", "pipeline.plan.rules", "the rules check the model, not the reverse"),
    ("pipeline.artifacts", "pipeline.build", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.ingest", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.links", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.simulate", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.render", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.check", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.review", "artifacts are data: they import no stage"),
    ("pipeline.artifacts", "pipeline.publish", "artifacts are data: they import no stage"),
    ("pipeline.ingest", "pipeline.links", "ingest reads the folder; the network is the links stage's"),
    ("pipeline.ingest", "pipeline.plan", "ingest comes before the plan"),
    ("pipeline.check.rules", "pipeline.check.browser", "the rule code imports no browser"),
    ("pipeline.check.rules", "pyppeteer", "the rule code imports no browser"),
    ("pipeline.publish", "pipeline.review", "publish reads artifacts, not the review's code"),
    ("pipeline.render", "pipeline.simulate", "the page reads SimResults, it runs no simulator"),
    ("pipeline.render", "sim", "the page reads SimResults, it runs no simulator"),
    ("pipeline", "importlib", "no import seams: a reader and mypy must see every edge"),
    ("pipeline.draw", "pipeline.fields", "the drawing library knows no field: fields use it"),
]
# FIELDS.md: a field imports the drawing library and its own engine, never another field; the
# page engine (plan, validate, sim, render, check, review, build) imports only the registry
# (`pipeline.fields` and its interface `pipeline.fields.base`, cache), never a field's own code.
FIELD_PACKAGES = sorted(
    p.name for p in (REPO / "pipeline" / "fields").iterdir() if (p / "__init__.py").exists()
)
PAGE_ENGINE = ("pipeline.plan", "pipeline.simulate", "pipeline.render", "pipeline.check",
               "pipeline.review", "pipeline.build", "pipeline.publish", "pipeline.artifacts",
               "pipeline.ingest", "pipeline.links")
FORBIDDEN += [
    (f"pipeline.fields.{a}", f"pipeline.fields.{b}", "a field never imports another field")
    for a in FIELD_PACKAGES for b in FIELD_PACKAGES if a != b
]
FORBIDDEN += [
    (engine, f"pipeline.fields.{f}", "the page engine reaches fields only through the registry")
    for engine in PAGE_ENGINE for f in FIELD_PACKAGES
]
# One module owns each outside thing (tests aside).
OWNERS: dict[str, tuple[str, ...]] = {
    "anthropic": ("pipeline.plan.llm", "pipeline.plan.structured"),
    "httpx": ("pipeline.links",),
    "pyppeteer": ("pipeline.check.browser",),
}
# Allowed on purpose: these stdlib helpers happen to live under importlib.
ALLOWED = {("pipeline", "importlib.metadata")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for top in PACKAGES for p in (REPO / top).rglob("*.py")}


def _imports(path: Path, known: set[str]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(
                f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known
            )
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, set(modules)) for name, path in modules.items()}


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def forbidden_edges(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for importer, imported in sorted((a, b) for a, bs in graph.items() for b in bs):
        if (importer, imported) in ALLOWED or any(
            _under(importer, a) and _under(imported, b) for a, b in ALLOWED
        ):
            continue
        for src, dst, why in FORBIDDEN:
            if _under(importer, src) and _under(imported, dst):
                out.append(f"{importer} -> {imported}: {why}")
        for outside, owners in OWNERS.items():
            if _under(imported, outside) and not any(_under(importer, o) for o in owners):
                out.append(f"{importer} -> {imported}: only {', '.join(owners)} may import it")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle among our own modules (Tarjan's strongly connected components); a
    package's `__init__` importing its own submodules is not a cycle by itself."""
    own = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(own[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 and not _package_and_its_modules(component):
                found.append(sorted(component))

    for v in sorted(own):
        if v not in index:
            visit(v)
    return found


def _package_and_its_modules(component: list[str]) -> bool:
    """`pipeline.draw` (its __init__ re-exports) with the submodules that import a sibling via
    `from pipeline.draw import x`: the edge to the package is really to the sibling."""
    packages = [c for c in component if any(o.startswith(c + ".") for o in component)]
    return len(packages) == 1 and all(_under(c, packages[0]) for c in component)


def test_no_import_cycles() -> None:
    assert cycles(_graph()) == []


def test_no_forbidden_imports() -> None:
    assert forbidden_edges(_graph()) == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("pipeline.draw.panel", "pipeline.plan.rules"),
        ("pipeline.draw.defs", "pipeline.fields.serving.scenes.drafts"),
        ("pipeline.render.page", "pipeline.fields.serving.walkthrough"),
        ("pipeline.review.numbers", "pipeline.fields.serving.walkthrough"),
        ("pipeline.plan.job", "pipeline.fields.serving.catalogue"),
        ("pipeline.draw.showcase", "pipeline.simulate.results"),
        ("pipeline.draw.showcase", "sim.presets.scenarios"),
        ("pipeline.render.walkthrough", "pipeline.simulate.results"),
        ("pipeline.publish.local", "pipeline.review.diff"),
        ("pipeline.check.rules", "pipeline.check.browser"),
        ("pipeline.render.diagrams", "importlib"),
        ("pipeline.render.page", "anthropic"),
        ("sim.engine", "pipeline.plan.model"),
    ],
)
def test_the_rules_catch_the_edges_that_were_there(importer: str, imported: str) -> None:
    """Each edge the restructuring removed would fail the rules again if it came back."""
    assert forbidden_edges({importer: {imported}})


def test_the_cycle_finder_finds_the_cycles_that_were_there() -> None:
    graph = {
        "pipeline.publish.local": {"pipeline.publish.git"},
        "pipeline.publish.git": {"pipeline.publish.local"},
        "pipeline.draw.defs": {"pipeline.draw.panel"},
        "pipeline.draw.panel": {"pipeline.draw.defs"},
    }
    assert cycles(graph) == [
        ["pipeline.draw.defs", "pipeline.draw.panel"],
        ["pipeline.publish.git", "pipeline.publish.local"],
    ]
