"""Sphinx extension: one page per source paper, generated from its claims registry.

At ``builder-inited`` it loads ``papers/registry.py`` (the schema and validation of
``papers/<paper>/claims*.toml``; the same code that writes the README tables) and writes, only
when the text changed:

* ``papers/generated/<paper>.md`` -- the paper's title (``[paper] title``), the prose of
  ``papers/<paper>/README.md`` before its generated claims table (image paths rewritten to this
  page's location), then every claim of every ``claims*.toml`` file of the paper, one section per
  claim with an anchor ``claim-<id>``: statement, source, verdict, scope, notes, the test that
  checks it, the implementation (a link into the API reference) and its figure;
* ``papers/generated/summary.inc`` -- a table of the papers with their verdict counts, included
  by ``papers/index.md``.

An invalid registry (:class:`ClaimsError`) stops the build with the registry's own message.
Text from the registry is escaped for Markdown (only the spans in backticks stay code), so that a
``*``, ``|`` or ``$`` in a statement is shown as written.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

_OUT = ("papers", "generated")
_PUNCT = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|$~&:\"'])")
_HEADING = re.compile(r"^(#{1,6})\s")
_LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)(\))")


def load_registry(papers_root: Path):
    """Import ``papers/registry.py`` from its path (it is a script, not a package module)."""
    path = papers_root / "registry.py"
    if not path.is_file():
        raise ExtensionError(f"paper_pages: {path} not found (set paper_pages_root in conf.py).")
    spec = importlib.util.spec_from_file_location("_bipartite_papers_registry", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def md_text(text: str) -> str:
    """Registry text as Markdown: whitespace folded, code spans kept, everything else escaped."""
    parts = " ".join(text.split()).split("`")
    if len(parts) % 2 == 0:  # an unbalanced backtick: escape all of it
        parts = [" ".join(text.split())]
    return "".join(p if i % 2 else _PUNCT.sub(r"\\\1", p) for i, p in enumerate(parts))


def readme_prose(readme: Path, registry, page_dir: Path, repo_root: Path) -> str:
    """The README without its H1 and without the generated claims block (and a heading that
    only introduces the block); relative links rewritten for ``page_dir``."""
    if not readme.is_file():
        return ""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(registry.START), text.find(registry.END)
    if start != -1 and end != -1:
        text = text[:start] + text[end + len(registry.END):]
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and re.match(r"^#{2,6}\s+Claims\s*$", lines[-1]):
        lines.pop()

    lines = _normalise_headings(lines)

    def relink(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return m.group(0)
        absolute = (readme.parent / target).resolve()
        try:
            absolute.relative_to(repo_root)
        except ValueError:
            return m.group(0)
        rel = Path(_relpath(absolute, page_dir))
        return f"{m.group(1)}{rel.as_posix()}{m.group(3)}"

    return "\n".join(_LINK.sub(relink, line) for line in lines).strip() + "\n"


def _normalise_headings(lines: list[str]) -> list[str]:
    """Renumber the README's headings (outside code fences) to levels 2, 3, ... by rank, never
    more than one level below the previous heading, so that they sit under the page's H1 without
    skipping a level (GitHub allows an H1 followed by an H3; MyST warns)."""
    fence = None
    found: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            continue
        m = _HEADING.match(line)
        if fence is None and m:
            found.append((i, len(m.group(1))))
    rank = {level: 2 + r for r, level in enumerate(sorted({lv for _, lv in found}))}
    out, previous = list(lines), 1
    for i, level in found:
        new = min(rank[level], previous + 1, 6)
        out[i] = "#" * new + lines[i][level:]
        previous = new
    return out


def _relpath(target: Path, start: Path) -> str:
    import os

    return os.path.relpath(target, start)


def render_claim(c, page_dir: Path, repo_root: Path, level: int = 3, registry=None) -> str:
    out = [f"(claim-{c.id})=", f"{'#' * level} `{c.id}`", "", md_text(c.statement), ""]
    fields = [("Source", md_text(c.source)), ("Verdict", f"**{c.verdict}**")]
    if registry is not None:  # what the verdict rests on (papers/README.md, "Verdicts")
        fields.append(("Evidence", md_text(registry.evidence_summary(c))))
    if c.scope:
        fields.append(("Scope", md_text(c.scope)))
    if c.notes:
        fields.append(("Notes", md_text(c.notes)))
    fields.append(("Checked by", f"`{c.test}`"))
    if c.code:
        fields.append(("Code", f"{{py:obj}}`{c.code}`"))
    for name, value in fields:
        out += [f"{name}", f": {value}", ""]
    if c.figure:
        fig = repo_root / c.figure
        if fig.is_file():
            rel = Path(_relpath(fig, page_dir)).as_posix()
            out += [f"```{{figure}} {rel}", ":width: 80%", "", md_text(fig.name), "```", ""]
        else:
            logger.warning("paper_pages: claim %s names the figure %s, which does not exist",
                           c.id, c.figure, type="paper_pages")
    return "\n".join(out)


def render_paper(paper: str, claims: list, registry, papers_root: Path, page_dir: Path) -> str:
    repo_root = papers_root.parent
    title = registry._paper_title(papers_root / paper)
    counts = ", ".join(f"{sum(c.verdict == v for c in claims)} {v}" for v in registry.VERDICTS)
    out = [f"(paper-{paper})=", f"# {md_text(title)}", ""]
    prose = readme_prose(papers_root / paper / "README.md", registry, page_dir, repo_root)
    if prose.strip():
        out += [prose, ""]
    out += ["## Claims", "",
            f"{len(claims)} claims: {counts}. Generated from "
            + ", ".join(f"`{Path(f).as_posix()}`" for f in dict.fromkeys(c.file for c in claims))
            + " (schema: `papers/registry.py`). Each claim names the test that checks it; "
            "`python papers/registry.py --check` verifies that every such test exists.", ""]
    by_file: dict[str, list] = {}
    for c in claims:
        by_file.setdefault(c.file, []).append(c)
    for file, items in by_file.items():
        level = 3
        if len(by_file) > 1:
            out += [f"### `{Path(file).name}`", ""]
            level = 4
        out += [render_claim(c, page_dir, repo_root, level, registry) for c in items]
    return "\n".join(out).rstrip() + "\n"


def render_summary(by_paper: dict[str, list], registry, papers_root: Path) -> str:
    head = "| Paper | Claims | " + " | ".join(registry.VERDICTS) + " |"
    rows = [head, "|" + "---|" * (2 + len(registry.VERDICTS))]
    for paper, claims in by_paper.items():
        title = md_text(registry._paper_title(papers_root / paper))
        counts = " | ".join(str(sum(c.verdict == v for c in claims)) for v in registry.VERDICTS)
        rows.append(f"| [{title}](generated/{paper}.md) | {len(claims)} | {counts} |")
    return "\n".join(rows) + "\n"


def _write(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def generate(app: Sphinx) -> None:
    papers_root = Path(app.config.paper_pages_root).resolve()
    registry = load_registry(papers_root)
    try:
        claims = registry.load_claims(papers_root)
    except registry.ClaimsError as exc:
        raise ExtensionError(f"paper_pages: invalid claims registry: {exc}") from None
    by_paper: dict[str, list] = {}
    for c in claims:
        by_paper.setdefault(c.paper, []).append(c)
    out = Path(app.srcdir).joinpath(*_OUT)
    wanted = set()
    for paper, items in sorted(by_paper.items()):
        _write(out / f"{paper}.md", render_paper(paper, items, registry, papers_root, out))
        wanted.add(f"{paper}.md")
    _write(out / "summary.inc", render_summary(dict(sorted(by_paper.items())), registry,
                                               papers_root))
    wanted.add("summary.inc")
    for stale in out.glob("*"):
        if stale.name not in wanted:
            stale.unlink()


def setup(app: Sphinx) -> dict:
    app.add_config_value("paper_pages_root", "", "env")
    app.connect("builder-inited", generate)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
