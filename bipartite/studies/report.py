"""Figures and tables from any study folder (generic: names no paper).
"""


from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.markdown import table_lines
from bipartite.plots import new_figure, save_figures
from bipartite.studies.config import STUDIES
from bipartite.studies.results import read_manifest, read_results
from bipartite.studies.tasks import TASK_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

# --------------------------------------------------------------------------------------------
# Figures and tables from results folders (shared helpers; analysis/ scripts call these)
# --------------------------------------------------------------------------------------------


def mean_and_se(df: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    """Mean, standard error and count of ``value`` per group ``by`` (NaN-aware)."""
    g = df.groupby(by, sort=True, dropna=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"] / np.sqrt(out["count"].clip(lower=1))
    out.loc[out["count"] < 2, "se"] = 0.0
    return out[[*by, "mean", "se", "count"]]


def standard_error(x: ArrayLike) -> float:
    """Standard error of the mean of ``x``: sample s.d. / √n, and 0 for fewer than two values
    (as :func:`mean_and_se`).

    >>> round(standard_error([1.0, 2.0, 3.0]), 4)
    0.5774
    """
    x = np.asarray(x, dtype=float)
    return float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0


@dataclass(frozen=True)
class PairedContrast:
    """A paired contrast (:func:`paired_contrast`): the mean and standard error of treatment minus
    baseline over the paired units, how many units lie in the claimed direction (``agree``) and
    how many units there are (``units``); ``differences``: the per-unit differences, indexed by
    the unit (for comparing their signs with another quantity of the same units)."""

    effect: float
    se: float
    agree: int
    units: int
    differences: pd.Series | None = field(default=None, compare=False, repr=False)


def paired_contrast(frame: pd.DataFrame, metric: str, treatment: str,
                    baseline: str | Sequence[str], *, direction: str = "higher",
                    column: str = "objective", pair_by: str = "split",
                    where: Mapping[str, object] | Sequence[tuple[str, object]] = ()
                    ) -> PairedContrast:
    """Treatment minus baseline on ``metric``, paired by ``pair_by``: the one home of the paired
    contrast behind every effect the package and its claims registry (``papers/registry.py``)
    report.

    The rows matching ``where`` (column = value filters) whose ``column`` is ``treatment`` or a
    ``baseline`` are paired by ``pair_by``; per unit the difference is treatment minus the
    baseline, or with several baselines minus the best of them in the claimed ``direction``
    (``"higher"``: the largest, ``"lower"``: the smallest). Units missing an arm, or with a NaN in
    one, are left out. ``effect`` and ``se`` are the mean and :func:`standard_error` of the
    differences, ``agree`` counts the units whose difference lies strictly in ``direction`` (a
    zero difference counts as against).

    Raises ``ValueError`` when ``direction`` is unknown, a column is missing, a unit holds two
    rows of one arm (``where`` is not specific enough), an arm has no rows, or no unit is
    complete.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"split": [0, 0, 1, 1], "objective": ["a", "b"] * 2,
    ...                    "min": [0.7, 0.6, 0.65, 0.66]})
    >>> c = paired_contrast(df, "min", "a", "b")
    >>> round(c.effect, 3), round(c.se, 3), c.agree, c.units
    (0.045, 0.055, 1, 2)
    """
    if direction not in ("higher", "lower"):
        raise ValueError(f"The 'direction' parameter must be 'higher' or 'lower', got "
                         f"{direction!r}.")
    baseline = (baseline,) if isinstance(baseline, str) else tuple(baseline)
    where = tuple(where.items()) if isinstance(where, Mapping) else tuple(where)
    need = [column, pair_by, metric, *(k for k, _ in where)]
    missing = [k for k in dict.fromkeys(need) if k not in frame.columns]
    if missing:
        raise ValueError(f"no column(s) {missing} (columns: {list(frame.columns)}).")
    rows = frame
    for key, value in where:
        rows = rows[rows[key] == value]
    arms = [treatment, *baseline]
    rows = rows[rows[column].isin(arms)]
    dup = rows.duplicated([pair_by, column])
    if dup.any():
        first = rows.loc[dup, [pair_by, column]].iloc[0].tolist()
        raise ValueError(f"several rows for ({pair_by}, {column}) = {first} under where = "
                         f"{dict(where)}; narrow 'where'.")
    wide = rows.pivot(index=pair_by, columns=column, values=metric).astype(float)
    absent = [a for a in arms if a not in wide.columns]
    if absent:
        raise ValueError(f"no rows with {column} in {absent} under where = {dict(where)}.")
    wide = wide[arms].dropna()
    if wide.empty:
        raise ValueError(f"no {pair_by} has every arm {arms}.")
    base = wide[list(baseline)]
    best = base.max(axis=1) if direction == "higher" else base.min(axis=1)
    per_unit = (wide[treatment] - best).rename(metric)
    diff = per_unit.to_numpy()
    agree = int((diff > 0).sum() if direction == "higher" else (diff < 0).sum())
    return PairedContrast(float(diff.mean()), standard_error(diff), agree, len(diff), per_unit)


def format_mean_se(mean: float, se: float) -> str:
    """``"mean ± se"`` to three decimals, and ``"–"`` for an undefined mean (a table cell).

    >>> format_mean_se(0.61234, 0.0042), format_mean_se(float("nan"), 0.0)
    ('0.612 ± 0.004', '–')
    """
    return "–" if not np.isfinite(mean) else f"{mean:.3f} ± {se:.3f}"


def _is_numeric(col) -> bool:
    """A numeric result column (not bool). ``np.issubdtype`` cannot read pandas extension dtypes
    (pandas 3 reads text as ``StringDtype``), so the pandas predicates decide."""
    import pandas as pd

    return pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)


def _is_text(col) -> bool:
    """A text (or mixed object) column: object under pandas 2, ``StringDtype`` under pandas 3."""
    import pandas as pd

    return col.dtype == object or pd.api.types.is_string_dtype(col.dtype)


#: Most legend entries drawn inside the axes; more go beside them, and more than this many lines
#: are split into panels (one per value of a grid key) when the grid has a second key.
MAX_LEGEND = 6
#: Most panels of one figure (a key with more values is drawn as lines, not panels).
MAX_PANELS = 12


def generic_figures(study_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """One figure per numeric result column of any study folder: mean ± s.e. over replicates
    against the first numeric grid parameter, one line per combination of the other grid keys
    and text result columns (e.g. a method name).

    Readable at any grid size: up to ``MAX_LEGEND`` lines share one panel with the legend
    inside; more lines are split into panels, one per value of the key with the most values (at
    most ``MAX_PANELS``; shared axes, each panel titled ``key = value``), and a longer
    legend is drawn beside the panels, titled with the keys its entries name, never over them.
    Axes carry the parameter and the result column's names."""
    study_dir = Path(study_dir)
    manifest = read_manifest(study_dir)
    df = read_results(study_dir)
    if df.empty:
        return []
    grid_keys = [k for k in manifest["grid"] if k in df.columns]
    numeric_grid = [k for k in grid_keys if _is_numeric(df[k])]
    x = numeric_grid[0] if numeric_grid else None
    others = [k for k in grid_keys if k != x]
    skip = set(TASK_COLUMNS) | set(manifest["params"]) | set(grid_keys)
    for case in manifest.get("cases", []):
        skip |= set(case)
    values = [c for c in df.columns if c not in skip and _is_numeric(df[c])]
    labels = [c for c in df.columns if c not in skip and _is_text(df[c])]
    paths = []
    for value in values:
        title = f"{manifest['name']}: {value} (mean ± s.e.)"
        if x is None:
            fig = _bar_figure(df, others + labels, value)
        else:
            fig = _line_figure(df, x, others + labels, value)
        fig.suptitle(title, fontsize=9)
        paths += save_figures(fig, fig_dir, f"{manifest['name']}_{value}".replace("/", "_"))
    return paths


def _bar_figure(df: pd.DataFrame, group_keys: list[str], value: str):
    """Mean ± s.e. of ``value`` per group, one bar each, the groups named under the bars."""
    fig, ax = new_figure(figsize=(5.5, 3.8), layout="constrained")
    stats = mean_and_se(df, group_keys or ["study"], value)
    names = stats[group_keys or ["study"]].astype(str).agg(", ".join, axis=1)
    ax.bar(range(len(stats)), stats["mean"], yerr=stats["se"])
    ax.set_xticks(range(len(stats)), names, rotation=45, ha="right", fontsize=7)
    ax.set_xlabel(", ".join(group_keys) if group_keys else "study")
    ax.set_ylabel(value)
    ax.grid(alpha=0.3, axis="y")
    return fig


def _facet_key(df: pd.DataFrame, group_keys: list[str]) -> str | None:
    """The key to split into panels: None for at most ``MAX_LEGEND`` lines or a single
    key, else the key with the most values among those with at most ``MAX_PANELS``."""
    n_lines = len(df.groupby(group_keys, dropna=False)) if group_keys else 1
    if n_lines <= MAX_LEGEND or len(group_keys) < 2:
        return None
    counts = {k: df[k].nunique(dropna=False) for k in group_keys}
    fits = [k for k in group_keys if 1 < counts[k] <= MAX_PANELS]
    return max(fits, key=lambda k: counts[k]) if fits else None


def _line_figure(df: pd.DataFrame, x: str, group_keys: list[str], value: str):
    """Mean ± s.e. of ``value`` against ``x``, one line per group, in panels by
    :func:`_facet_key`; colours follow the line's group in every panel."""
    facet = _facet_key(df, group_keys)
    line_keys = [k for k in group_keys if k != facet]
    panels = (sorted(df[facet].dropna().unique().tolist()) + ([None] * bool(df[facet].isna().any()))
              if facet else [None])
    lines = ([k if isinstance(k, tuple) else (k,) for k, _ in df.groupby(line_keys, dropna=False)]
             if line_keys else [()])
    colour = {k: f"C{i % 10}" if len(lines) <= 10 else _tab20(i) for i, k in enumerate(lines)}
    outside = len(lines) > MAX_LEGEND or facet is not None
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = new_figure(nrows, ncols, figsize=(3.6 * ncols + (2.2 if outside else 1.9),
                                                  2.9 * nrows + 0.9),
                           layout="constrained", sharex=True, sharey=True, squeeze=False)
    log_x = (df[x] > 0).all() and df[x].max() / max(df[x].min(), 1e-300) >= 50
    handles = {}
    for i, panel in enumerate(panels):
        ax = axes.flat[i]
        sub = df if facet is None else df[df[facet].isna() if panel is None else df[facet] == panel]
        groups = sub.groupby(line_keys, sort=True, dropna=False) if line_keys else [((), sub)]
        for key, part in groups:
            key = key if isinstance(key, tuple) else (key,)
            stats = mean_and_se(part, [x], value)
            h = ax.errorbar(stats[x], stats["mean"], yerr=stats["se"], marker="o", ms=3,
                            capsize=2, color=colour[key], lw=1.1)
            handles.setdefault(key, h)
        if facet is not None:
            ax.set_title(f"{facet} = {panel}", fontsize=8)
        if log_x:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.tick_params(labelbottom=True)  # every panel keeps its x tick labels
        if i // ncols == nrows - 1 or i + ncols >= len(panels):
            ax.set_xlabel(x)
        if i % ncols == 0:
            ax.set_ylabel(value)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    if line_keys:
        names = [", ".join(str(v) for v in k) for k in handles]
        legend_title = ", ".join(line_keys)
        if outside:
            fig.legend(list(handles.values()), names, title=legend_title, loc="outside right upper",
                       fontsize=7, title_fontsize=7, ncols=1 if len(names) <= 18 else 2)
        else:
            axes.flat[0].legend(list(handles.values()), names, title=legend_title, fontsize=7,
                                title_fontsize=7, loc="best")
    return fig


def _tab20(i: int) -> tuple:
    """Colour i of matplotlib's 20-colour qualitative map (cycled)."""
    import matplotlib

    return matplotlib.colormaps["tab20"](i % 20)


def study_figures(study_dir: str | os.PathLike, fig_dir: str | os.PathLike) -> list[Path]:
    """Figures of one study folder: the registered study's own figure function if it has one
    (``register_study(..., figures=...)``), else :func:`generic_figures`."""
    study_dir = Path(study_dir)
    manifest = read_manifest(study_dir)
    spec = STUDIES.get(manifest["function"])
    if spec is not None and spec.figures is not None:
        return spec.figures(read_results(study_dir), Path(fig_dir))
    return generic_figures(study_dir, fig_dir)


def markdown_table(df: pd.DataFrame, *, digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame (floats rounded to ``digits``; ``|`` in
    a name or a cell escaped by the one table writer, :func:`bipartite._utils.markdown.table_lines`).

    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"a": [1, 2], "b": [0.5, float("nan")]})))
    | a | b |
    |---|---|
    | 1 | 0.5000 |
    | 2 | – |
    """
    def fmt(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "–"
        if isinstance(v, float | np.floating):
            if v != 0 and abs(v) < 10.0 ** -(digits - 1):
                return f"{v:.2e}"
            return f"{v:.{digits}f}"
        return str(v)

    return "\n".join(table_lines(list(df.columns), ([fmt(v) for v in row] for row in
                                                     df.itertuples(index=False, name=None))))


def study_summary_table(study_dir: str | os.PathLike) -> pd.DataFrame:
    """Mean, standard error and count of every numeric result column per grid point (and per
    text column of the results, e.g. a method name) of a study folder."""
    import pandas as pd

    study_dir = Path(study_dir)
    manifest = read_manifest(study_dir)
    df = read_results(study_dir)
    params = list(manifest["grid"]) + sorted(set().union(*manifest["cases"]) if manifest["cases"]
                                             else set())
    skip = set(TASK_COLUMNS) | set(manifest["params"]) | set(params)
    labels = [c for c in df.columns if c not in skip and _is_text(df[c])]
    values = [c for c in df.columns if c not in skip and _is_numeric(df[c])]
    by = [c for c in params + labels if c in df.columns]
    if not by:
        by = ["study"]
    pieces = []
    for value in values:
        stats = mean_and_se(df, by, value).rename(columns={"mean": f"{value}_mean",
                                                           "se": f"{value}_se",
                                                           "count": f"{value}_n"})
        pieces.append(stats.set_index(by))
    if not pieces:
        return pd.DataFrame(columns=by)
    return pd.concat(pieces, axis=1).reset_index()


def write_table(df: pd.DataFrame, table_dir: str | os.PathLike, name: str, *, note: str = "",
                digits: int = 4) -> list[Path]:
    """Write a key-number table as ``<table_dir>/<name>.csv`` and ``<name>.md`` (Markdown, with an
    optional note above it, :func:`markdown_table`); return both paths.

    The one table writer of the experiments (every paper's ``tables/`` folder).
    """
    table_dir = Path(table_dir)
    table_dir.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = table_dir / f"{name}.csv", table_dir / f"{name}.md"
    df.to_csv(csv_path, index=False)
    text = (note.strip() + "\n\n" if note else "") + markdown_table(df, digits=digits) + "\n"
    md_path.write_text(text, encoding="utf-8")
    return [csv_path, md_path]
