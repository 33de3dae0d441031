"""The mathematics ships with the repository: every ``docs/theory.md §n`` that a docstring, a paper
registry or the README cites exists as a heading of ``docs/theory.md``; each of its sections ends
with a **Code:** line of cross-references to the public functions that implement it, each
importable and documented; and it refers to no file outside the repository."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
THEORY = REPO / "docs" / "theory.md"
CITATION = re.compile(r"docs/theory\.md\s+§\s?(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)[.\s]", re.M)


def cited_sections() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    files = [*(REPO / "bipartite").rglob("*.py"), *(REPO / "papers").rglob("*.toml"),
             *(REPO / "papers").rglob("*.md"), REPO / "README.md", *(REPO / "tests").rglob("*.py")]
    for path in files:
        if path.name == Path(__file__).name:
            continue
        for m in CITATION.finditer(path.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), []).append(str(path.relative_to(REPO)))
    return cited


def test_theory_sections_are_numbered_one_to_eleven_at_least():
    numbers = {int(h.split(".")[0]) for h in HEADING.findall(THEORY.read_text(encoding="utf-8"))}
    assert set(range(1, 12)) <= numbers


def test_every_cited_section_exists():
    headings = set(HEADING.findall(THEORY.read_text(encoding="utf-8")))
    cited = cited_sections()
    assert len(cited) >= 11  # the docstrings do cite the theory
    missing = {s: sorted(set(where))[:3] for s, where in cited.items() if s not in headings}
    assert not missing, f"cited but missing in docs/theory.md: {missing}"


def test_the_check_can_fail():
    assert CITATION.findall("see docs/theory.md §99.1 and docs/theory.md §4") == ["99.1", "4"]
    assert "99.1" not in set(HEADING.findall(THEORY.read_text(encoding="utf-8")))


# ------------------------------------------------------------------------------------------------
# The theory links to the code: each section ends with a "Code:" line of cross-references
# ------------------------------------------------------------------------------------------------

SECTION = re.compile(r"^## .*$", re.M)
#: A cross-reference of the Code: lines (MyST's ``{py:role}`target` ``), resolved by Sphinx
#: against the API pages (docs/_ext/apigen.py).
XREF = re.compile(r"\{py:(\w+)\}`([^`]*)`")
ROLES = {"func": "function", "meth": "method", "class": "class", "mod": "module"}


def sections(text: str) -> dict[str, str]:
    """``{heading: body}`` of every top-level (``## ``) section."""
    heads = list(SECTION.finditer(text))
    return {m.group(0): text[m.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
            for i, m in enumerate(heads)}


def code_line(body: str) -> str | None:
    """The last paragraph of a section body when it is its **Code:** line, else None."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    last = paragraphs[-1] if paragraphs else ""
    return last if last.startswith("**Code:**") else None


def kind(obj) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        qual = getattr(obj, "__qualname__", "")
        return "method" if "." in qual and "<locals>" not in qual else "function"
    return type(obj).__name__


def check_reference(role: str, name: str) -> str | None:
    """Why ``{py:role}`name``` does not name a public, documented object of the package, or None.

    Public: no part of the name starts with ``_``; documented: the first attribute after the module
    is in the module's ``__all__`` (what the API pages document), and the object's kind matches
    the role."""
    if role not in ROLES:
        return f"unknown role {{py:{role}}} (use one of {sorted(ROLES)})"
    parts = name.split(".")
    if parts[0] != "bipartite" or any(p.startswith("_") for p in parts):
        return f"{name!r} is not a public name of the package"
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        break
    else:  # pragma: no cover - "bipartite" itself imports
        return f"{name!r}: no module"
    module, rest = obj, parts[i:]
    if rest and rest[0] not in getattr(module, "__all__", ()):
        return f"{name!r}: {rest[0]!r} is not in {module.__name__}.__all__"
    for attr in rest:
        if not hasattr(obj, attr):
            return f"{name!r}: {attr!r} does not exist"
        obj = getattr(obj, attr)
    if kind(obj) != ROLES[role]:
        return f"{{py:{role}}}`{name}` names a {kind(obj)}, not a {ROLES[role]}"
    return None


def code_line_problems(text: str) -> list[str]:
    problems = []
    for head, body in sections(text).items():
        line = code_line(body)
        if line is None:
            problems.append(f"{head!r} does not end with a **Code:** line")
            continue
        refs = XREF.findall(line)
        if not refs:
            problems.append(f"{head!r}: its Code: line names no function")
        if re.sub(r"\{py:\w+\}`[^`]*`", "", line).count("`"):
            problems.append(f"{head!r}: its Code: line has a name that is not a cross-reference")
        problems += [f"{head!r}: {why}" for role, name in refs
                     if (why := check_reference(role, name))]
    return problems


def test_every_section_ends_with_a_code_line_of_public_names():
    text = THEORY.read_text(encoding="utf-8")
    assert len(sections(text)) >= 13
    problems = code_line_problems(text)
    assert not problems, "\n".join(problems)


def test_the_code_line_check_can_fail():
    good = "**Code:** {py:func}`bipartite.metrics.auc`, {py:class}`bipartite.population.FiniteProblem`."
    assert code_line_problems(f"## 1. A\n\nText.\n\n{good}\n") == []
    cases = {
        "## 1. A\n\nText.\n": "does not end with a **Code:** line",
        f"## 1. A\n\n{good}\n\nMore text after it.\n": "does not end with a **Code:** line",
        "## 1. A\n\n**Code:** none yet.\n": "names no function",
        "## 1. A\n\n**Code:** {py:func}`bipartite.metrics.auc`, `auc`.\n": "not a cross-reference",
        "## 1. A\n\n**Code:** {py:func}`bipartite.metrics.no_such_auc`.\n": "not in",
        "## 1. A\n\n**Code:** {py:func}`bipartite.no_such_module.auc`.\n": "not in",
        "## 1. A\n\n**Code:** {py:func}`bipartite.metrics._kernels.auc`.\n": "not a public name",
        "## 1. A\n\n**Code:** {py:class}`bipartite.metrics.auc`.\n": "names a function, not a class",
        "## 1. A\n\n**Code:** {py:meth}`bipartite.population.FiniteProblem.nope`.\n":
            "does not exist",
        "## 1. A\n\n**Code:** {py:obj}`bipartite.metrics.auc`.\n": "unknown role",
        "## 1. A\n\n**Code:** {py:func}`numpy.sort`.\n": "not a public name of the package",
    }
    for text, message in cases.items():
        found = code_line_problems(text)
        assert len(found) == 1 and message in found[0], (text, found)


#: A backticked path (``papers/la25/claims.toml``, ``tests/x.py::test_y``, ``../shared/x``).
PATH = re.compile(r"^[\w.*-]*(/[\w.*-]+)+(::\w+)?$")


def outside_references(text: str) -> list[str]:
    """Backticked paths that are not files or folders of the repository, and the stale note."""
    bad = []
    for span in re.findall(r"`([^`\n]+)`", text):
        for token in span.split():
            if not PATH.match(token):
                continue
            rel = token.split("::")[0]
            inside = (REPO / rel).resolve().is_relative_to(REPO)
            if not inside or not any(REPO.glob(rel)):
                bad.append(f"`{token}` is not a path of the repository")
    bad += [f"stale note: {m!r}" for m in re.findall(r"[^.\n]*being reorganised[^.\n]*", text)]
    return bad


def test_the_theory_refers_to_nothing_outside_the_repository():
    assert not outside_references(THEORY.read_text(encoding="utf-8"))
    # and the check finds what it must
    assert outside_references("see `../shared/THEORY.md` and `papers/la25/claims_section7.toml`") \
        == ["`../shared/THEORY.md` is not a path of the repository"]
    assert outside_references("run `python benchmarks/no_such_bench.py --part x`")
    assert outside_references("named so because the layout is being reorganised.")
