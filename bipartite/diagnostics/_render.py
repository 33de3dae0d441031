"""The report's blocks as Markdown and as HTML (:class:`bipartite.diagnostics.Diagnostics`).

A report is a list of blocks — ``("h", level, text)``, ``("p", text)``, ``("table", header,
rows)``, ``("list", items)``, ``("figure", name)`` or ``("figure", name, heading)`` (a level-2 heading
shown with the figure only) — whose text may hold Markdown's
inline marks: code spans in backticks, ``**strong**`` and ``*emphasis*``. Markdown writes them
as they are (tables through the one table writer, :func:`bipartite._utils.markdown.table_lines`,
which escapes ``|``); HTML renders the marks as ``<code>``, ``<strong>`` and ``<em>`` and escapes
everything else, so the page shows no literal Markdown. Table body cells are data (names,
numbers): they are escaped, never read as Markdown. :func:`page` is the self-contained page
(inline CSS, figures as ``data:`` PNG images, no script and no external resource), written as
well-formed XHTML so that an XML parser reads it too."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from bipartite._utils.markdown import table_lines

__all__ = ["CSS", "fmt_ci", "fmt_num", "fmt_p", "html_blocks", "inline_html", "markdown_blocks", "page"]

def fmt_num(x: Any, digits: int = 3) -> str:
    """A table cell: a float to ``digits`` decimals ("–" when not finite, never "-0.000"),
    None as "–", anything else as its text."""
    if isinstance(x, float | np.floating):
        t = f"{x:.{digits}f}" if np.isfinite(x) else "–"
        return t[1:] if t.startswith("-") and float(t) == 0 else t  # no "-0.000"
    return "–" if x is None else str(x)


def fmt_p(p: Any, digits: int = 3) -> str:
    """A p-value to ``digits`` decimals, "< 0.001" below the last one, "–" when not finite."""
    return "–" if not np.isfinite(p) else (f"< {10.0 ** -digits:g}" if p < 10.0 ** -digits
                                           else f"{p:.{digits}f}")


def fmt_ci(lo: Any, hi: Any, digits: int = 3, missing: str = "–") -> str:
    """An interval ``[lo, hi]`` to ``digits`` decimals; ``missing`` when an end is not finite."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return missing
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


#: The page's only style sheet (inline): readable tables, figures that fit the window.
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       margin: 0; background: #fafafa; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5em 2em 3em; background: #fff; }
h1 { font-size: 1.7em; margin-top: 0.3em; }
h2 { font-size: 1.35em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.8em; }
h3 { font-size: 1.1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.88em; display: block;
        overflow-x: auto; }
th, td { border: 1px solid #d5d5d5; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td { white-space: nowrap; }
td:last-child { white-space: normal; }
th { background: #f0f2f5; }
tbody tr:nth-child(even) { background: #fafbfc; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em;
       background: #f1f1f1; padding: 0 0.25em; border-radius: 3px; }
figure { margin: 1em 0 1.5em; }
figure img { max-width: 100%; height: auto; border: 1px solid #e3e3e3; }
figcaption { font-size: 0.9em; color: #444; margin-top: 0.3em; }
.recommendation { background: #eef6ee; border-left: 4px solid #3a7d44; padding: 0.6em 1em; }
.warning { background: #fff4e5; border-left: 4px solid #d9822b; padding: 0.6em 1em; }
li { margin: 0.2em 0; }
"""

_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")


def inline_html(text: str) -> str:
    """Markdown's inline marks of ``text`` as HTML, the rest escaped: code spans (their content
    escaped, never read further), then ``**strong**`` and ``*emphasis*``.

    >>> inline_html("*favoured* marks `a<b`, **not** 2 * 3")
    '<em>favoured</em> marks <code>a&lt;b</code>, <strong>not</strong> 2 * 3'
    """
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: a literal one, not a code span
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    out = []
    for i, p in enumerate(parts):
        if i % 2:
            out.append(f"<code>{html.escape(p)}</code>")
        else:
            t = _STRONG.sub(r"<strong>\1</strong>", html.escape(p))
            out.append(_EM.sub(r"<em>\1</em>", t))
    return "".join(out)


def markdown_blocks(blocks: list[tuple], fmt: Callable[[Any], str],
                    figures: Mapping[str, tuple[str, str]] | None = None) -> list[str]:
    """The blocks as Markdown lines; table body cells through ``fmt``; a figure block as an
    image link to ``figures[name] = (file name, caption)``, or nothing without one."""
    lines: list[str] = []
    for b in blocks:
        if b[0] == "h":
            lines += ["#" * b[1] + " " + b[2], ""]
        elif b[0] == "p":
            lines += [b[1], ""]
        elif b[0] == "table":
            lines += table_lines(b[1], ([fmt(v) for v in r] for r in b[2])) + [""]
        elif b[0] == "figure":
            if figures and b[1] in figures:
                src, cap = figures[b[1]]
                lines += [f"## {b[2]}", ""] if len(b) > 2 else []
                lines += [f"![{b[1]}]({src})", "", cap, ""]
        else:
            lines += [f"- {x}" for x in b[1]] + [""]
    return lines


def html_blocks(blocks: list[tuple], fmt: Callable[[Any], str],
                figures: Mapping[str, tuple[str, str]] | None = None) -> str:
    """The blocks as an HTML fragment, ``<div class="bipartite-diagnostics">``; a figure block
    as an ``<img>`` of ``figures[name] = (data: URI, caption)``, or nothing without one."""
    out = ['<div class="bipartite-diagnostics">']
    for b in blocks:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{inline_html(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            cls = (' class="recommendation"' if b[1].startswith("**Recommendation") else
                   ' class="warning"' if b[1].startswith("**Warning") else "")
            out.append(f"<p{cls}>{inline_html(b[1])}</p>")
        elif b[0] == "table":
            head = "".join(f"<th>{inline_html(str(h))}</th>" for h in b[1])
            body = "".join("<tr>" + "".join(f"<td>{html.escape(fmt(v))}</td>" for v in r)
                           + "</tr>" for r in b[2])
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif b[0] == "figure":
            if figures and b[1] in figures:
                src, cap = figures[b[1]]
                if len(b) > 2:
                    out.append(f"<h2>{inline_html(b[2])}</h2>")
                out.append(f'<figure id="fig-{html.escape(b[1])}"><img src="{src}" '
                           f'alt="{html.escape(re.sub(r"[`*]", "", cap))}"/>'
                           f"<figcaption>{inline_html(cap)}</figcaption></figure>")
        else:
            out.append("<ul>" + "".join(f"<li>{inline_html(x)}</li>" for x in b[1]) + "</ul>")
    return "\n".join(out + ["</div>"])


def page(fragment: str, title: str) -> str:
    """A self-contained XHTML page around an HTML fragment: UTF-8, the inline :data:`CSS`, no
    script, no external resource."""
    return ('<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en">\n<head>\n'
            '<meta charset="utf-8"/>\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>\n'
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
            f"{fragment}\n</main>\n</body>\n</html>\n")
