"""The package's architecture, enforced from the source (``ast``; nothing is imported).

Rules (docs/architecture in the README, issues "One layered package" and "One home per concept"):

1. **No import cycles** between modules of :mod:`bipartite`, counting module-level and
   function-level imports alike (an import inside a function hides a cycle, it does not remove it).
2. **Every module has a layer, and imports only go down.** From the bottom:

   * ``bipartite._utils`` — the one private base (validation, torch helpers), imports nothing else;
   * the **core**, in the order of the theory (docs/theory.md): ``labels``, ``ranked_metrics``,
     ``metrics``, ``population``, ``bayes``, ``pareto``, ``objectives`` (what is optimised: it
     delegates to ``bayes`` and, for max-min, ``pareto``), ``dictatorship``, ``_pair_losses`` (the
     pair-loss table, public as ``surrogates.PAIR_LOSSES``), ``surrogates``, ``consistency``,
     ``learners``, ``data``, ``plots``, ``diagnostics``: a core module imports only core modules
     that come before it (or its own package);
   * ``bipartite.contrib`` — the other papers' methods (the core never imports them);
   * ``bipartite.studies`` — the one experiment runner;
   * ``bipartite.experiments`` — one package per paper;
   * ``bipartite.cli`` (and ``__main__``) on top.

   Imports inside an ``if TYPE_CHECKING:`` block are annotations only and are not counted.
3. **The runner is paper-neutral.** ``bipartite.studies`` imports no contrib (and, by rule 2, no
   experiment), and its source names no paper.
4. **Papers are independent.** A paper under ``bipartite.experiments`` imports no other paper.
5. **No private names across modules.** No module imports a name that starts with ``_`` from
   another module, or imports a private module of another package (``bipartite._utils`` is the one
   shared private base).
6. **No private attributes across modules.** ``x._name`` is allowed only when ``_name`` is defined
   in the same module (a function, class, method, argument, assignment, attribute store or import
   alias of that name), or when ``x`` is ``self`` or ``cls``. Through an imported module of the
   package (``labels._helper``) it is never allowed, whatever the module defines. Dunder names (``__init__``) are not private, and the few documented
   APIs named with ``_`` (namedtuple's ``_replace``, ``os._exit``) are allowed.
7. **Small modules.** No module is over :data:`MAX_LINES` lines.
8. **Short functions.** No function or method is over :data:`MAX_FUNCTION_LINES` lines, its
   docstring not counted; the few exceptions are listed, each with its reason, in
   :data:`LONG_FUNCTION_ALLOWANCE`, and an entry that no longer applies fails the test.

The checker runs on any source root (:class:`Tree`): the tests at the top run it on the package, and
the tests at the bottom run it on small synthetic packages written to ``tmp_path``, each holding one
violation that the checker must flag (and a clean package that it must pass), so that no rule
passes by construction.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "bipartite"
MAX_LINES = 700
MAX_FUNCTION_LINES = 120

#: The core, in the order of the theory.
CORE = ("labels", "ranked_metrics", "metrics", "population", "bayes", "pareto", "objectives",
        "dictatorship", "_pair_losses", "surrogates", "consistency", "learners", "data", "plots",
        "diagnostics")
PAPERS = ("la25", "mtrub", "hapvr", "rlsep", "lr2ppo")
#: Layer numbers above the core.
UPPER = {"contrib": 100, "studies": 200, "experiments": 300, "cli": 400, "__main__": 400}

#: Functions allowed over :data:`MAX_FUNCTION_LINES`, by full name, each with the reason. Not a
#: general exemption: an entry that names a missing or short function fails
#: ``test_rule_holds[function_length]``, so each one is removed as soon as its reason is gone.
LONG_FUNCTION_ALLOWANCE: dict[str, str] = {}

#: Documented public API whose names start with ``_``: the methods of every
#: :func:`collections.namedtuple` class, and two functions of the standard library.
NAMEDTUPLE_API = frozenset({"_asdict", "_replace", "_fields", "_make", "_field_defaults"})
STDLIB_UNDERSCORE_API = frozenset({"os._exit", "sys._getframe"})


def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


# --------------------------------------------------------------------------------------------------
# The checker: a source tree, and one function per rule returning the violations it finds
# --------------------------------------------------------------------------------------------------


@dataclass
class Tree:
    """The modules of the package rooted at ``root`` (a folder with ``__init__.py``), parsed."""

    root: Path
    #: functions allowed over the length limit, full name -> reason (rule 8)
    long_function_allowance: dict[str, str] = field(default_factory=dict)
    modules: dict[str, Path] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)
    parsed: dict[str, ast.Module] = field(default_factory=dict)

    @classmethod
    def scan(cls, root: Path, long_function_allowance: dict[str, str] | None = None) -> Tree:
        tree = cls(Path(root), dict(long_function_allowance or {}))
        for path in sorted(tree.root.rglob("*.py")):
            rel = path.relative_to(tree.root.parent).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join(parts)
            tree.modules[name] = path
            tree.source[name] = path.read_text(encoding="utf-8")
            tree.parsed[name] = ast.parse(tree.source[name], filename=str(path))
        return tree

    @property
    def package(self) -> str:
        return self.root.name

    def where(self, name: str, line: int | None = None) -> str:
        rel = self.modules[name].relative_to(self.root.parent).as_posix()
        return f"{rel}:{line}" if line is not None else rel

    def is_package(self, name: str) -> bool:
        return self.modules[name].name == "__init__.py"

    def owner(self, target: str) -> str | None:
        """The module of the tree that an import target denotes (``pkg.mod.name`` -> ``pkg.mod``)."""
        if target in self.modules:
            return target
        parent = target.rsplit(".", 1)[0]
        return parent if parent in self.modules else None

    def _resolve_relative(self, name: str, node: ast.ImportFrom) -> str:
        base = name.split(".") if self.is_package(name) else name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def imports(self, name: str) -> Iterator[tuple[str, str | None, int]]:
        """``(target_module, imported_name_or_None, lineno)`` for every import of the package in
        ``name``, at any depth, skipping ``if TYPE_CHECKING:`` blocks."""
        skip: set[int] = set()
        for node in ast.walk(self.parsed[name]):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
        for node in ast.walk(self.parsed[name]):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == self.package:
                        yield alias.name, None, node.lineno
            elif isinstance(node, ast.ImportFrom):
                mod = self._resolve_relative(name, node) if node.level else (node.module or "")
                if mod.split(".")[0] != self.package:
                    continue
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    if sub in self.modules:
                        yield sub, None, node.lineno
                    else:
                        yield mod, alias.name, node.lineno

    def edges(self) -> dict[str, set[str]]:
        graph: dict[str, set[str]] = defaultdict(set)
        for name in self.modules:
            for target, _, _ in self.imports(name):
                if target != name:
                    graph[name].add(target)
        return graph


def layer(name: str) -> tuple[int, int]:
    """(layer, rank within the core); the root package sits with the base. Raises for a module in
    no layer."""
    parts = name.split(".")
    if len(parts) == 1 or parts[1] == "_utils":
        return (0, 0)
    top = parts[1]
    if top in CORE:
        return (10, CORE.index(top))
    if top in UPPER:
        return (UPPER[top], 0)
    raise LookupError(f"module {name} is in no layer: add it to CORE or UPPER")


def _same_component(a: str, b: str) -> bool:
    """Modules of one core package (``bipartite.pareto.*``) may import each other."""
    pa, pb = a.split("."), b.split(".")
    return len(pa) > 1 and len(pb) > 1 and pa[1] == pb[1] and pa[1] in CORE


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


def check_cycles(tree: Tree) -> list[str]:
    cycle = find_cycle(tree.edges())
    return ["import cycle: " + " -> ".join(cycle)] if cycle else []


def check_layers(tree: Tree) -> list[str]:
    """Every module has a layer, and no import goes up (rule 2)."""
    bad = []
    for name in tree.modules:
        try:
            here = layer(name)
        except LookupError as exc:
            bad.append(f"{tree.where(name)}: {exc}")
            continue
        for target, _, line in tree.imports(name):
            owner = tree.owner(target)
            if owner is None:
                continue
            try:
                there = layer(owner)
            except LookupError:
                continue  # reported for the target module itself
            if there > here and not _same_component(name, owner):
                bad.append(f"{tree.where(name, line)}: upward import {name} -> {target}")
    return bad


def check_studies_are_paper_neutral(tree: Tree) -> list[str]:
    """``studies`` imports no contrib, and its source names no paper (rule 3)."""
    bad = []
    for name in tree.modules:
        parts = name.split(".")
        if len(parts) < 2 or parts[1] != "studies":
            continue
        for target, _, line in tree.imports(name):
            tp = target.split(".")
            if len(tp) > 1 and tp[1] == "contrib":
                bad.append(f"{tree.where(name, line)}: the runner imports contrib ({target})")
        text = tree.source[name].lower()
        bad += [f"{tree.where(name)}: the runner names the paper {p!r}" for p in PAPERS
                if p in text]
    return bad


def check_papers_are_independent(tree: Tree) -> list[str]:
    """A paper imports no other paper (rule 4)."""
    bad = []
    for name in tree.modules:
        parts = name.split(".")
        if not (len(parts) > 2 and parts[1] == "experiments" and parts[2] in PAPERS):
            continue
        for target, _, line in tree.imports(name):
            tp = target.split(".")
            if len(tp) > 2 and tp[1] == "experiments" and tp[2] in PAPERS and tp[2] != parts[2]:
                bad.append(f"{tree.where(name, line)}: paper {parts[2]} imports {target}")
    return bad


def check_private_imports(tree: Tree) -> list[str]:
    """No private name imported from another module, no private module of another package
    (rule 5)."""
    bad = []
    for name in tree.modules:
        own_package = name if tree.is_package(name) else name.rsplit(".", 1)[0]
        for target, imported, line in tree.imports(name):
            if imported is not None and _is_private(imported) and target != name:
                bad.append(f"{tree.where(name, line)}: imports private name {imported!r} "
                           f"from {target}")
            parts = target.split(".")
            private = [i for i, p in enumerate(parts) if _is_private(p)]
            if private and parts[private[0]] != "_utils":
                owner = ".".join(parts[: private[0]])
                if not (own_package + ".").startswith(owner + "."):
                    bad.append(f"{tree.where(name, line)}: imports private module {target}")
    return bad


def defined_names(module: ast.Module) -> set[str]:
    """Every name the module defines: functions, classes, methods, arguments, assignment targets
    (names and attributes, ``self._x = ...`` included) and import aliases."""
    names: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def module_aliases(tree: Tree, module: ast.Module) -> set[str]:
    """Names that a module binds to modules of the package (``import bipartite.x as y``,
    ``from bipartite import labels``)."""
    aliases = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            aliases.update(a.asname for a in node.names
                           if a.asname and a.name.split(".")[0] == tree.package)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            aliases.update(a.asname or a.name for a in node.names
                           if f"{node.module}.{a.name}" in tree.modules)
    return aliases


def check_private_attributes(tree: Tree) -> list[str]:
    """``x._name`` only for ``_name`` defined in the same module, or ``x`` in {self, cls}; never
    through another module of the package (rule 6)."""
    bad = []
    for name, module in tree.parsed.items():
        defined = defined_names(module) | NAMEDTUPLE_API
        aliases = module_aliases(tree, module)
        for node in ast.walk(module):
            if not (isinstance(node, ast.Attribute) and _is_private(node.attr)):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            through_a_module = isinstance(node.value, ast.Name) and node.value.id in aliases
            if not through_a_module and (node.attr in defined
                                         or ast.unparse(node) in STDLIB_UNDERSCORE_API):
                continue
            bad.append(f"{tree.where(name, node.lineno)}: reaches into another module's private "
                       f"attribute: {ast.unparse(node)}")
    return bad


def check_module_size(tree: Tree) -> list[str]:
    """No module over :data:`MAX_LINES` lines (rule 7)."""
    bad = []
    for name, text in tree.source.items():
        n = len(text.splitlines())
        if n > MAX_LINES:
            bad.append(f"{tree.where(name)}: {n} lines (limit {MAX_LINES}): split it by concept")
    return bad


def function_lengths(tree: Tree) -> Iterator[tuple[str, str, int]]:
    """``(full name, where, length)`` of every function and method, nested ones included
    (``bipartite.cli.main``, ``bipartite.population.FiniteProblem.auc``). The length counts the
    lines of the body from its first statement after the docstring to its end: the signature and
    the docstring are not counted, blank lines and comments inside the body are."""

    def walk(node: ast.AST, prefix: str, module: str):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}.{child.name}", module)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                body = child.body
                if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                        and isinstance(body[0].value.value, str)):
                    body = body[1:]
                n = child.end_lineno - body[0].lineno + 1 if body else 0
                yield f"{prefix}.{child.name}", tree.where(module, child.lineno), n
                yield from walk(child, f"{prefix}.{child.name}", module)
            else:
                yield from walk(child, prefix, module)

    for name, module in tree.parsed.items():
        yield from walk(module, name, name)


def check_function_length(tree: Tree) -> list[str]:
    """No function over :data:`MAX_FUNCTION_LINES` lines without its docstring, except those in
    the tree's allowance; a stale allowance entry is a violation (rule 8)."""
    allowance = tree.long_function_allowance
    bad, long = [], set()
    for full, where, n in function_lengths(tree):
        if n <= MAX_FUNCTION_LINES:
            continue
        long.add(full)
        if full not in allowance:
            bad.append(f"{where}: {full} has {n} lines without its docstring (limit "
                       f"{MAX_FUNCTION_LINES}): split it into named steps")
    bad += [f"{full}: listed in the long-function allowance ({why}) but it is missing or within "
            f"the limit: remove the entry" for full, why in allowance.items() if full not in long]
    return bad


#: Every rule, by name.
RULES: dict[str, Callable[[Tree], list[str]]] = {
    "cycles": check_cycles,
    "layers": check_layers,
    "studies_paper_neutral": check_studies_are_paper_neutral,
    "papers_independent": check_papers_are_independent,
    "private_imports": check_private_imports,
    "private_attributes": check_private_attributes,
    "module_size": check_module_size,
    "function_length": check_function_length,
}


def violations(tree: Tree) -> dict[str, list[str]]:
    """The violations of every rule that has some."""
    return {rule: found for rule, check in RULES.items() if (found := check(tree))}


# --------------------------------------------------------------------------------------------------
# The package obeys every rule
# --------------------------------------------------------------------------------------------------

PACKAGE = Tree.scan(ROOT, LONG_FUNCTION_ALLOWANCE)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_holds(rule):
    found = RULES[rule](PACKAGE)
    assert not found, f"rule {rule!r} is broken:\n" + "\n".join(found)


def test_layers_order_as_documented():
    assert layer("bipartite._utils.validation") < layer("bipartite.labels")
    assert layer("bipartite.labels") < layer("bipartite.pareto.dp") < layer("bipartite.plots")
    assert layer("bipartite.plots") < layer("bipartite.contrib.fusion")
    assert layer("bipartite.contrib.fusion") < layer("bipartite.studies.runner")
    assert layer("bipartite.studies.runner") < layer("bipartite.experiments.la25.run")
    assert layer("bipartite.experiments.la25") < layer("bipartite.cli")


def test_the_package_is_scanned():
    """The real tree is read (a wrong root would pass every rule vacuously)."""
    assert {"bipartite", "bipartite.cli", "bipartite.population", "bipartite.studies"} <= set(
        PACKAGE.modules)
    assert len(PACKAGE.modules) > 50
    assert sum(1 for _ in function_lengths(PACKAGE)) > 500


# --------------------------------------------------------------------------------------------------
# The checker's own tests: a clean synthetic package passes; each violation is flagged
# --------------------------------------------------------------------------------------------------

_BODY_120 = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
#: A package with one module per layer that obeys every rule, and sits at every limit.
CLEAN = {
    "__init__.py": '"""The package."""\n',
    "__main__.py": "from bipartite.cli import main\n",
    "_utils/__init__.py": "",
    "_utils/validation.py": "def check(x):\n    return x\n",
    "labels.py": ("from bipartite._utils.validation import check\n\n\n"
                  "def aggregate(y):\n    return check(y)\n"),
    "ranked_metrics.py": "X = 0\n" * MAX_LINES,
    "metrics/__init__.py": "from bipartite.metrics.auc import auc\n",
    "metrics/_kernels.py": "def kernel(s):\n    return s\n",
    "metrics/auc.py": ("from bipartite.labels import aggregate\n"
                       "from bipartite.metrics._kernels import kernel\n\n\n"
                       "def auc(y, s):\n    return kernel(aggregate(y)), s\n"),
    "population.py": (
        "from typing import TYPE_CHECKING\n\n"
        "from bipartite.metrics import auc\n\n"
        "if TYPE_CHECKING:  # annotations only: not an import\n"
        "    from bipartite.contrib.fusion import fuse\n\n\n"
        "class FiniteProblem:\n"
        "    def __init__(self, mass):\n        self._mass = mass\n\n"
        "    def _check(self, s):\n        return s\n\n"
        "    def auc(self, s):\n        return auc(self._mass, self._check(s))\n\n"
        "    def __eq__(self, other):\n        return self._mass == other._mass\n\n"
        "    @classmethod\n    def make(cls):\n        return cls._default()\n\n"
        "    @classmethod\n    def _default(cls):\n        return cls(1)\n\n\n"
        "def at_the_limit():\n"
        '    """A docstring\n\n    over several lines,\n    not counted.\n    """\n'
        f"{_BODY_120}    return x0\n"
    ),
    "bayes.py": ("from collections import namedtuple\n\nfrom bipartite.population import "
                 "FiniteProblem\n\nPoint = namedtuple('Point', 'x y')\n\n\n"
                 "def bayes(p: FiniteProblem):\n    return Point(p.auc(1), 0)._replace(y=1)\n"),
    "dictatorship.py": ("from bipartite._utils.validation import check\n\n\n"
                        "def dictator(p):\n    return check(p)\n"),
    "contrib/__init__.py": "",
    "contrib/fusion.py": "from bipartite.metrics import auc\n\n\ndef fuse(y, s):\n"
                         "    return auc(y, s)\n",
    "studies/__init__.py": "from bipartite.studies.runner import run\n",
    "studies/runner.py": "from bipartite.metrics import auc\n\n\ndef run(f):\n    return f(auc)\n",
    "experiments/__init__.py": "",
    "experiments/la25/__init__.py": "",
    "experiments/la25/run.py": ("from bipartite.contrib.fusion import fuse\n"
                                "from bipartite.studies import run\n\n\n"
                                "def main():\n    return run(fuse)\n"),
    "experiments/mtrub/__init__.py": "",
    "experiments/mtrub/run.py": "from bipartite.studies import run\n",
    "cli.py": ("import bipartite.experiments.la25.run as la25\n\n\n"
               "def main():\n    return la25.main()\n"),
}


def write_tree(tmp_path: Path, changes: dict[str, str],
               long_function_allowance: dict[str, str] | None = None) -> Tree:
    root = tmp_path / "bipartite"
    for rel, text in {**CLEAN, **changes}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Tree.scan(root, long_function_allowance)


def test_a_clean_tree_passes(tmp_path):
    tree = write_tree(tmp_path, {})
    assert violations(tree) == {}
    # the limits are inclusive, and the docstring is not counted
    lengths = {full: n for full, _, n in function_lengths(tree)}
    assert lengths["bipartite.population.at_the_limit"] == MAX_FUNCTION_LINES
    assert len(tree.source["bipartite.ranked_metrics"].splitlines()) == MAX_LINES


_LONG_BODY = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES + 1))

#: One violation each: ``(files changed from CLEAN, the one rule that must flag it, a piece of the
#: message naming the place)``.
VIOLATIONS = {
    "cycle": (
        {"metrics/_kernels.py": "def kernel(s):\n    from bipartite.metrics.auc import auc\n"
                                "    return auc\n"},
        "cycles", "bipartite.metrics._kernels -> bipartite.metrics.auc"),
    "core_imports_later_core": (
        {"labels.py": "from bipartite.dictatorship import dictator\n"},
        "layers", "bipartite/labels.py:1: upward import"),
    "core_imports_contrib_relative": (
        {"bayes.py": "from .contrib import fusion\n"},
        "layers", "bipartite/bayes.py:1: upward import bipartite.bayes -> bipartite.contrib"),
    "utils_imports_core": (
        {"_utils/__init__.py": "import bipartite.labels\n"},
        "layers", "bipartite/_utils/__init__.py:1: upward import"),
    "studies_imports_experiment": (
        {"studies/runner.py": "def run(f):\n    from bipartite import experiments\n"
                              "    return experiments\n"},
        "layers", "bipartite/studies/runner.py:2"),
    "module_in_no_layer": (
        {"newthing.py": "X = 1\n"},
        "layers", "bipartite.newthing is in no layer"),
    "studies_imports_contrib": (
        {"studies/runner.py": "from bipartite.contrib.fusion import fuse\n"},
        "studies_paper_neutral", "bipartite/studies/runner.py:1: the runner imports contrib"),
    "studies_names_a_paper": (
        {"studies/runner.py": "DEFAULT = 'results/LA25'\n"},
        "studies_paper_neutral", "names the paper 'la25'"),
    "paper_imports_other_paper": (
        {"experiments/mtrub/run.py": "from bipartite.experiments.la25.run import main\n"},
        "papers_independent", "paper mtrub imports bipartite.experiments.la25.run"),
    "private_name_import": (
        {"bayes.py": "from bipartite.labels import _helper\n"},
        "private_imports", "imports private name '_helper' from bipartite.labels"),
    "private_module_import": (
        {"contrib/fusion.py": "from bipartite.metrics._kernels import kernel\n"},
        "private_imports", "imports private module bipartite.metrics._kernels"),
    "private_attribute_of_a_module": (
        {"contrib/fusion.py": "from bipartite import labels\n\nX = labels._helper\n"},
        "private_attributes", "bipartite/contrib/fusion.py:3"),
    "private_attribute_of_a_module_with_a_local_namesake": (
        {"contrib/fusion.py": "from bipartite import labels\n\n\ndef _helper():\n"
                              "    return labels._helper\n"},
        "private_attributes", "bipartite/contrib/fusion.py:5"),
    "private_method_of_an_object": (
        {"bayes.py": "def bayes(problem):\n    return problem._check(1)\n"},
        "private_attributes", "bipartite/bayes.py:2: reaches into another module's private "
                              "attribute: problem._check"),
    "private_attribute_through_a_chain": (
        {"cli.py": "def main(args):\n    return args.problem.population._mass\n"},
        "private_attributes", "args.problem.population._mass"),
    "module_too_long": (
        {"plots.py": "X = 0\n" * (MAX_LINES + 1)},
        "module_size", f"bipartite/plots.py: {MAX_LINES + 1} lines"),
    "function_too_long": (
        {"plots.py": f'def plot():\n    """Doc."""\n{_LONG_BODY}'},
        "function_length", f"bipartite.plots.plot has {MAX_FUNCTION_LINES + 1} lines"),
    "method_too_long": (
        {"plots.py": "class Figure:\n    def draw(self):\n" + _LONG_BODY.replace("    ", "        ")},
        "function_length", "bipartite.plots.Figure.draw has"),
}


def test_every_rule_has_a_violation_case():
    assert {rule for _, rule, _ in VIOLATIONS.values()} == set(RULES)


@pytest.mark.parametrize("case", sorted(VIOLATIONS))
def test_each_violation_is_flagged_by_its_rule_alone(tmp_path, case):
    changes, rule, message = VIOLATIONS[case]
    found = violations(write_tree(tmp_path, changes))
    assert set(found) == {rule}, found
    assert any(message in v for v in found[rule]), found[rule]


def test_the_function_length_allowance_is_named_and_checked(tmp_path):
    long = {"plots.py": f"def plot():\n{_LONG_BODY}"}
    assert check_function_length(write_tree(tmp_path, long, {"bipartite.plots.plot": "why"})) == []
    # an entry for a short or missing function is stale: it fails until it is removed
    stale = check_function_length(write_tree(tmp_path, long, {
        "bipartite.plots.plot": "why", "bipartite.labels.aggregate": "why"}))
    assert len(stale) == 1 and "bipartite.labels.aggregate" in stale[0]
    assert all(why for why in LONG_FUNCTION_ALLOWANCE.values())


def test_find_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
