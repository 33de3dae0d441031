"""Claims registry: every checked claim of a source paper, with the test that checks it.

Each paper folder holds one or more ``papers/<paper>/claims*.toml`` files of ``[[claim]]`` tables:

=============  ========  ==================================================================
field          required  meaning
=============  ========  ==================================================================
``id``         yes       unique over all files, e.g. ``"hapvr-rminus-c1"``
``statement``  yes       the claim, in the paper's words where possible
``source``     yes       where the paper makes it (section / equation / proposition)
``test``       yes       pytest node id, ``tests/...py::test_name`` (``::Class::test``,
                         a parametrized ``[...]`` suffix allowed)
``verdict``    yes       ``"holds"``, ``"holds-narrower"``, ``"refuted"`` or ``"not-reproduced"``
                         (the data or setup is not reachable here: neither confirmed nor refuted)
``scope``      one of    the exact scope in which the verdict was checked
``notes``      these     anything else (counterexample, caveats)
``code``       no        dotted name of the implementation, e.g. ``bipartite.surrogates.ap_risk``
``figure``     no        repository-relative path of a figure that shows it
=============  ========  ==================================================================

An optional top-level ``[paper]`` table may give ``title`` (used as the README heading when the
README is created). Usage, from the repository root::

    python papers/registry.py            # print every paper's table
    python papers/registry.py --write    # rewrite the table in each papers/<paper>/README.md
    python papers/registry.py --check    # exit 1 if a README is stale or a test is missing

``--write`` replaces only the text between ``<!-- claims:start -->`` and ``<!-- claims:end -->``
(appending the block if a README has no markers, creating the README if there is none).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PAPERS_DIR = Path(__file__).resolve().parent
REPO_ROOT = PAPERS_DIR.parent
START = "<!-- claims:start -->"
END = "<!-- claims:end -->"
VERDICTS = ("holds", "holds-narrower", "refuted", "not-reproduced")
REQUIRED = ("id", "statement", "source", "test", "verdict")
OPTIONAL = ("scope", "notes", "code", "figure")
TOP_LEVEL = ("claim", "paper")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_NODE = re.compile(r"^(?P<path>[^:\s]+\.py)::(?P<names>[A-Za-z_]\w*(::[A-Za-z_]\w*)*)"
                   r"(?P<param>\[.*\])?$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


class ClaimsError(ValueError):
    """A claims file does not follow the schema (the message names the file and the entry)."""


@dataclass(frozen=True)
class Claim:
    paper: str
    file: str
    id: str
    statement: str
    source: str
    test: str
    verdict: str
    scope: str = ""
    notes: str = ""
    code: str = ""
    figure: str = ""


def claims_files(root: Path = PAPERS_DIR) -> list[Path]:
    """All ``<root>/*/claims*.toml`` files, sorted."""
    return sorted(root.glob("*/claims*.toml"))


def _validate_entry(entry: object, where: str) -> dict[str, str]:
    if not isinstance(entry, dict):
        raise ClaimsError(
            f"{where}: a [[claim]] entry must be a table, got {type(entry).__name__}."
        )
    unknown = sorted(set(entry) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ClaimsError(f"{where}: unknown field(s) {unknown}; allowed are "
                          f"{list(REQUIRED) + list(OPTIONAL)}.")
    missing = [k for k in REQUIRED if k not in entry]
    if missing:
        raise ClaimsError(f"{where}: missing required field(s) {missing}.")
    for key, value in entry.items():
        if not isinstance(value, str) or not value.strip():
            raise ClaimsError(f"{where}: field '{key}' must be a non-empty string, got {value!r}.")
    if not ("scope" in entry or "notes" in entry):
        raise ClaimsError(f"{where}: give at least one of 'scope' or 'notes'.")
    if not _ID.match(entry["id"]):
        raise ClaimsError(f"{where}: 'id' must match {_ID.pattern}, got {entry['id']!r}.")
    if entry["verdict"] not in VERDICTS:
        raise ClaimsError(f"{where}: 'verdict' must be one of {list(VERDICTS)}, "
                          f"got {entry['verdict']!r}.")
    if not _NODE.match(entry["test"]):
        raise ClaimsError(f"{where}: 'test' must be a pytest node id "
                          f"'path/to/test_x.py::test_name', got {entry['test']!r}.")
    if "code" in entry and not _DOTTED.match(entry["code"]):
        raise ClaimsError(f"{where}: 'code' must be a dotted name like "
                          f"'bipartite.module.function', got {entry['code']!r}.")
    if "figure" in entry:
        fig = Path(entry["figure"])
        if fig.is_absolute() or ".." in fig.parts:
            raise ClaimsError(f"{where}: 'figure' must be a repository-relative path, "
                              f"got {entry['figure']!r}.")
    return dict(entry)


def load_file(path: Path, *, root: Path = PAPERS_DIR) -> list[Claim]:
    """Parse and validate one claims file."""
    rel = path.relative_to(root.parent) if path.is_relative_to(root.parent) else path
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ClaimsError(f"{rel}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(TOP_LEVEL))
    if unknown:
        raise ClaimsError(f"{rel}: unknown top-level key(s) {unknown}; use [[claim]] tables "
                          "and an optional [paper] table.")
    entries = data.get("claim")
    if not isinstance(entries, list) or not entries:
        raise ClaimsError(f"{rel}: needs at least one [[claim]] table.")
    paper = path.parent.name
    out = []
    for i, entry in enumerate(entries):
        label = entry.get("id", "?") if isinstance(entry, dict) else "?"
        fields = _validate_entry(entry, f"{rel} claim #{i + 1} ({label})")
        out.append(Claim(paper=paper, file=str(rel), **fields))
    return out


def load_claims(root: Path = PAPERS_DIR) -> list[Claim]:
    """Every claim of every ``<root>/*/claims*.toml``, validated; ids unique over all files."""
    claims: list[Claim] = []
    seen: dict[str, str] = {}
    for path in claims_files(root):
        for c in load_file(path, root=root):
            if c.id in seen:
                raise ClaimsError(f"{c.file}: claim id {c.id!r} is already used in {seen[c.id]}.")
            seen[c.id] = c.file
            claims.append(c)
    return claims


def node_exists(node_id: str, repo_root: Path = REPO_ROOT) -> bool:
    """Whether the pytest node id names a test function that exists (static: parses the file).

    ``path::func``, ``path::Class::method`` and a parametrization suffix ``[...]`` (stripped) are
    understood; the function may be sync or async.
    """
    m = _NODE.match(node_id)
    if not m:
        return False
    path = repo_root / m.group("path")
    if not path.is_file():
        return False
    names = m.group("names").split("::")
    body = ast.parse(path.read_text(encoding="utf-8")).body
    for i, name in enumerate(names):
        last = i == len(names) - 1
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef) if last else (ast.ClassDef,)
        node = next((n for n in body if isinstance(n, kinds) and n.name == name), None)
        if node is None:
            return False
        body = getattr(node, "body", [])
    return True


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_table(claims: list[Claim]) -> str:
    """Markdown table of the claims (one row each, in file order)."""
    rows = ["| ID | Claim | Source | Verdict | Scope and notes | Checked by |",
            "|---|---|---|---|---|---|"]
    for c in claims:
        extra = " ".join(x for x in (c.scope, c.notes) if x)
        checked = f"`{c.test}`"
        if c.code:
            checked += f"<br>code: `{c.code}`"
        if c.figure:
            checked += f"<br>figure: [{Path(c.figure).name}](../../{c.figure})"
        rows.append(f"| `{c.id}` | {_cell(c.statement)} | {_cell(c.source)} | **{c.verdict}** | "
                    f"{_cell(extra)} | {checked} |")
    counts = ", ".join(f"{sum(c.verdict == v for c in claims)} {v}" for v in VERDICTS)
    return "\n".join(rows) + f"\n\n{len(claims)} claims: {counts}.\n"


def render_block(claims: list[Claim]) -> str:
    """The README block between the markers, markers included."""
    return (f"{START}\n<!-- generated by `python papers/registry.py --write` from "
            f"claims*.toml; do not edit by hand -->\n\n{render_table(claims)}{END}")


def updated_readme(text: str | None, block: str, title: str) -> str:
    """README text with ``block`` between the markers (other text kept)."""
    if text is None:
        return f"# {title}\n\n{block}\n"
    start, end = text.find(START), text.find(END)
    if start == -1 and end == -1:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    if start == -1 or end == -1 or end < start:
        raise ClaimsError(f"README has unbalanced claim markers {START} / {END}.")
    return text[:start] + block + text[end + len(END):]


def _paper_title(paper_dir: Path) -> str:
    for path in sorted(paper_dir.glob("claims*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        title = data.get("paper", {}).get("title") if isinstance(data.get("paper"), dict) else None
        if isinstance(title, str) and title.strip():
            return title.strip()
    return paper_dir.name


def readmes(root: Path = PAPERS_DIR) -> dict[Path, str]:
    """README path -> its expected content, for every paper with a claims file."""
    by_paper: dict[str, list[Claim]] = {}
    for c in load_claims(root):
        by_paper.setdefault(c.paper, []).append(c)
    out = {}
    for paper, claims in sorted(by_paper.items()):
        readme = root / paper / "README.md"
        current = readme.read_text(encoding="utf-8") if readme.is_file() else None
        out[readme] = updated_readme(current, render_block(claims), _paper_title(root / paper))
    return out


def stale_readmes(root: Path = PAPERS_DIR) -> list[Path]:
    """READMEs whose claims table differs from the registry."""
    return [p for p, want in readmes(root).items()
            if not p.is_file() or p.read_text(encoding="utf-8") != want]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the README tables")
    mode.add_argument("--check", action="store_true",
                      help="exit 1 if a README is stale or a claim names a missing test")
    args = parser.parse_args(argv)
    if args.write:
        for path, text in readmes().items():
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(REPO_ROOT)}")
        return 0
    if args.check:
        problems = [f"stale: {p.relative_to(REPO_ROOT)} (run python papers/registry.py --write)"
                    for p in stale_readmes()]
        problems += [f"missing test: {c.id} -> {c.test}" for c in load_claims()
                     if not node_exists(c.test)]
        print("\n".join(problems) if problems else "claims registry OK")
        return 1 if problems else 0
    by_paper: dict[str, list[Claim]] = {}
    for c in load_claims():
        by_paper.setdefault(c.paper, []).append(c)
    for paper, claims in sorted(by_paper.items()):
        print(f"## {paper}\n\n{render_table(claims)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
