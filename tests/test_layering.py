"""The package's architecture, enforced from the source (``ast``; nothing is imported).

Rules (docs/architecture in the README, issue "One layered package"):

1. **No import cycles** between modules of :mod:`bipartite`, counting module-level and
   function-level imports alike (an import inside a function hides a cycle, it does not remove it).
2. **Layers, imports only go down.** From the bottom:

   * ``bipartite._utils`` — the one private base (validation, torch helpers), imports nothing else;
   * the **core**, in the order of the theory (docs/theory.md): ``labels``, ``ranked_metrics``,
     ``metrics``, ``population``, ``bayes``, ``pareto``, ``objectives`` (what is optimised: it
     delegates to ``bayes`` and, for max-min, ``pareto``), ``dictatorship``, ``_pair_losses`` (the
     pair-loss table, public as ``surrogates.PAIR_LOSSES``), ``surrogates``, ``consistency``,
     ``learners``, ``data``, ``plots``, ``diagnostics``: a core module imports only core modules
     that come before it (or its own package);
   * ``bipartite.contrib`` — the other papers' methods (the core never imports them);
   * ``bipartite.studies`` — the one experiment runner (it imports no contrib and no experiment,
     and its source names no paper);
   * ``bipartite.experiments`` — one package per paper; a paper imports no other paper;
   * ``bipartite.cli`` (and ``__main__``) on top.

3. **No private names across modules.** No module imports a name that starts with ``_`` from
   another module, imports a private module of another package, or reaches into another module's
   private attribute (``module._name``). Shared private helpers live in ``bipartite._utils``.
4. **Small modules.** No module is over :data:`MAX_LINES` lines.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "bipartite"
PACKAGE = "bipartite"
MAX_LINES = 850

#: The core, in the order of the theory.
CORE = ("labels", "ranked_metrics", "metrics", "population", "bayes", "pareto", "objectives",
        "dictatorship", "_pair_losses", "surrogates", "consistency", "learners", "data", "plots",
        "diagnostics")
PAPERS = ("la25", "mtrub", "hapvr", "rlsep", "lr2ppo")
#: Layer numbers above the core.
UPPER = {"contrib": 100, "studies": 200, "experiments": 300, "cli": 400, "__main__": 400}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


MODULES = modules()


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def layer(name: str) -> tuple[int, int]:
    """(layer, rank within the core); the root package ``bipartite`` sits with the base."""
    parts = name.split(".")
    if len(parts) == 1 or parts[1] == "_utils":
        return (0, 0)
    top = parts[1]
    if top in CORE:
        return (10, CORE.index(top))
    if top in UPPER:
        return (UPPER[top], 0)
    raise AssertionError(f"module {name} is in no layer: add it to CORE or UPPER")


def _resolve_relative(name: str, node: ast.ImportFrom) -> str:
    base = name.split(".") if is_package(name) else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(name: str):
    """Yield ``(target_module, imported_name_or_None, lineno)`` for every import of ``name``,
    skipping ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in ast.walk(node):
                skip.add(id(sub))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve_relative(name, node) if node.level else (node.module or "")
            if mod.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                if sub in MODULES:
                    yield sub, None, node.lineno
                else:
                    yield mod, alias.name, node.lineno


def edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name in MODULES:
        for target, _, _ in imports(name):
            if target != name:
                graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph, or None (iterative DFS with colours)."""
    colour: dict[str, int] = {}
    for start in sorted(set(graph) | {t for targets in graph.values() for t in targets}):
        if colour.get(start):
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        colour[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
                path.pop()
            elif colour.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not colour.get(nxt):
                colour[nxt] = 1
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
                path.append(nxt)
    return None


def test_the_rules_can_fail():
    """The checks themselves: a cycle is found, and layers order as documented."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert layer("bipartite._utils.validation") < layer("bipartite.labels")
    assert layer("bipartite.labels") < layer("bipartite.pareto.dp") < layer("bipartite.plots")
    assert layer("bipartite.plots") < layer("bipartite.contrib.fusion")
    assert layer("bipartite.contrib.fusion") < layer("bipartite.studies.runner")
    assert layer("bipartite.studies.runner") < layer("bipartite.experiments.la25.run")
    assert layer("bipartite.experiments.la25") < layer("bipartite.cli")


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


def test_no_import_cycles():
    cycle = find_cycle(edges())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_imports_only_go_down():
    bad = []
    for name in MODULES:
        here = layer(name)
        for target, _, line in imports(name):
            if target not in MODULES and target.rsplit(".", 1)[0] not in MODULES:
                continue
            there = layer(target if target in MODULES else target.rsplit(".", 1)[0])
            if there > here and not _same_component(name, target):
                bad.append(f"{MODULES[name].relative_to(ROOT.parent)}:{line}: {name} -> {target}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def _same_component(a: str, b: str) -> bool:
    """Modules of one core package (``bipartite.pareto.*``) may import each other."""
    pa, pb = a.split("."), b.split(".")
    return len(pa) > 1 and len(pb) > 1 and pa[1] == pb[1] and pa[1] in CORE


def test_papers_import_no_other_paper_and_the_runner_names_none():
    bad = []
    for name in MODULES:
        parts = name.split(".")
        if len(parts) > 2 and parts[1] == "experiments" and parts[2] in PAPERS:
            for target, _, line in imports(name):
                tp = target.split(".")
                if len(tp) > 2 and tp[1] == "experiments" and tp[2] in PAPERS and tp[2] != parts[2]:
                    bad.append(f"{name}:{line} imports {target}")
        if len(parts) > 1 and parts[1] == "studies":
            text = MODULES[name].read_text(encoding="utf-8").lower()
            bad += [f"{name} names the paper {p!r}" for p in PAPERS if p in text]
    assert not bad, "\n".join(bad)


def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def test_no_private_names_across_modules():
    bad = []
    for name in MODULES:
        where = MODULES[name].relative_to(ROOT.parent)
        own_package = name if is_package(name) else name.rsplit(".", 1)[0]
        for target, imported, line in imports(name):
            if imported is not None and _is_private(imported):
                bad.append(f"{where}:{line}: imports private name {imported!r} from {target}")
            parts = target.split(".")
            private = [i for i, p in enumerate(parts) if _is_private(p)]
            if private and parts[private[0]] != "_utils":
                owner = ".".join(parts[: private[0]])
                if not (own_package + ".").startswith(owner + "."):
                    bad.append(f"{where}:{line}: imports private module {target}")
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith(PACKAGE + ".") and a.asname:
                        aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if f"{node.module}.{a.name}" in MODULES:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and _is_private(node.attr)):
                bad.append(f"{where}:{node.lineno}: reaches into {aliases[node.value.id]}."
                           f"{node.attr}")
    assert not bad, "private names across modules:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    n = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{name} has {n} lines (limit {MAX_LINES}): split it by concept"
