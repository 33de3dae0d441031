"""The one Markdown table writer (GitHub-flavoured): the diagnostics report
(:mod:`bipartite.diagnostics._render`) and the studies' tables
(:func:`bipartite.studies.report.markdown_table`) both write through it, so a cell holding ``|``
(a label or scorer named ``y|a``) is escaped once, the same way, and never splits a row."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["cell", "table_lines"]


def cell(text: object) -> str:
    """A table cell's text: ``|`` escaped as ``\\|`` (GFM reads it as a literal bar, in a code
    span too) and line breaks as spaces (a row is one line).

    >>> cell("y|a")
    'y\\\\|a'
    """
    return str(text).replace("|", "\\|").replace("\r\n", " ").replace("\n", " ")


def table_lines(header: Sequence[object], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table: the header, the rule and one line per row, every cell
    through :func:`cell`. The cells are text already (numbers formatted by the caller).

    >>> print("\\n".join(table_lines(["a", "b|c"], [["1", "x|y"]])))
    | a | b\\|c |
    |---|---|
    | 1 | x\\|y |
    """
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
