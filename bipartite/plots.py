"""Figures: the AUC frontier, per-label AUC against skew, and the LA25 Fig. 1 partial orders
(docs/theory.md §6, §7).

Every ``plot_*`` function takes ``ax=`` (draw into an existing Axes and return its figure) or
creates a new figure through :mod:`matplotlib.pyplot`, so ``plt.show()`` shows it in a script or a
notebook; it returns the figure and saves it when ``path`` is given — one path or a list of paths,
the format taken from each suffix (``.png``, ``.pdf``, ``.svg``). Files are fit for a paper: PDF
and PS embed TrueType fonts (``pdf.fonttype`` 42, never Type 3, which IEEE and ACM checkers
reject) and carry no creation date, so the same figure gives the same bytes.
:func:`new_figure` makes a figure without pyplot state for batch work (the studies' figures).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import check_array

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_frontier", "plot_auc_vs_skew", "plot_partial_orders", "default_partial_orders",
           "new_figure", "save_figure", "save_figures", "FIGURE_SUFFIXES"]

#: The file suffixes a figure can be saved under (:func:`save_figure`; ``bipartite frontier
#: --plot``), the format taken from the suffix.
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
#: Settings every saved figure uses: TrueType (Type 42) fonts in PDF and PS, never Type 3.
PUBLICATION_RC = {"pdf.fonttype": 42, "ps.fonttype": 42}
PathLike = str | os.PathLike


def save_figure(fig: Figure, path: PathLike | Sequence[PathLike] | None) -> list[Path]:
    """Save ``fig`` to one path or to each of a list of paths (format by suffix); return them.

    PNG at 150 dpi; PDF without a creation date, so that the same figure gives the same bytes.

    Raises
    ------
    ValueError
        For a suffix other than ``.png``, ``.pdf``, ``.svg``.
    """
    if path is None:
        return []
    paths = [Path(path)] if isinstance(path, str | os.PathLike) else [Path(p) for p in path]
    for p in paths:
        if p.suffix.lower() not in FIGURE_SUFFIXES:
            raise ValueError(
                f"The 'path' parameter must end in one of {list(FIGURE_SUFFIXES)}, got {str(p)!r}."
            )
    import matplotlib

    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
        with matplotlib.rc_context(PUBLICATION_RC):
            fig.savefig(p, bbox_inches="tight", dpi=150,
                        metadata={"CreationDate": None} if p.suffix.lower() == ".pdf" else None)
    return paths


def save_figures(fig: Figure, fig_dir: PathLike, name: str,
                 formats: Sequence[str] = ("png", "pdf")) -> list[Path]:
    """Save ``fig`` as ``<fig_dir>/<name>.<format>`` for each format (see :func:`save_figure`)."""
    return save_figure(fig, [Path(fig_dir) / f"{name}.{ext}" for ext in formats])


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None,
               layout: str | None = None, **subplots_kw: Any) -> tuple[Figure, Axes | np.ndarray]:
    """A new :class:`matplotlib.figure.Figure` and its axes (``Figure.subplots``), without pyplot
    state: no global backend switch, nothing left open.

    >>> fig, ax = new_figure(figsize=(3, 2))
    >>> type(fig).__name__, type(ax).__name__
    ('Figure', 'Axes')
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(nrows, ncols, **subplots_kw)


def _new_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """The figure of ``ax``, or a new pyplot figure (so ``plt.show()`` knows it)."""
    if ax is not None:
        return ax.figure, ax
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return fig, ax


def _points(x: ArrayLike, name: str) -> np.ndarray:
    if isinstance(x, tuple) and len(x) == 2 and all(np.ndim(e) == 2 for e in x):
        x = x[1]  # (weights, aucs) as returned by bipartite.pareto.weight_sweep
    P = check_array(x, name, ndim=2)
    if P.shape[1] != 2:
        raise ValueError(f"The '{name}' parameter must have 2 columns (AUC_1, AUC_2), got "
                         f"shape {P.shape}.")
    return P


def plot_frontier(
    exact: ArrayLike | None = None,
    supported: ArrayLike | None = None,
    sweep: ArrayLike | tuple[ArrayLike, ArrayLike] | None = None,
    label_points: Mapping[str, ArrayLike] | None = None,
    ax: Axes | None = None,
    labels: tuple[str, str] = ("AUC_1", "AUC_2"),
    *,
    title: str | None = None,
    path: PathLike | Sequence[PathLike] | None = None,
) -> Figure:
    """The per-label AUC frontier of a K = 2 problem (docs/theory.md §6; LA25 §3).

    Parameters
    ----------
    exact : array-like (m, 2), optional — exact Pareto points (e.g.
        :func:`bipartite.pareto.exact_frontier`), drawn as open circles.
    supported : array-like (v, 2), optional — supported points (convex-hull vertices, e.g.
        :func:`bipartite.pareto.supported_frontier`), drawn as a line through the vertices
        sorted by AUC_1.
    sweep : array-like (s, 2) or ``(weights, aucs)``, optional — the loss-aggregation weight
        sweep (:func:`bipartite.pareto.weight_sweep`), drawn as small dots.
    label_points : dict name -> (2,), optional — e.g. label aggregation by sum / product.
    ax : matplotlib Axes, optional
    labels : axis labels
    title : str, optional
    path : str or path or list of them, optional — save (format by suffix)

    Returns
    -------
    matplotlib.figure.Figure

    >>> fig = plot_frontier(exact=[[0.9, 0.6], [0.8, 0.7]], label_points={"sum": [0.85, 0.66]})
    >>> fig.axes[0].get_xlabel()
    'AUC_1'
    """
    if exact is None and supported is None and sweep is None and not label_points:
        raise ValueError("plot_frontier needs at least one of exact, supported, sweep, "
                         "label_points.")
    fig, ax = _new_axes(ax, (5.0, 4.2))
    # Larger, open markers below; smaller filled ones on top: no marker hides another.
    if exact is not None:
        E = _points(exact, "exact")
        ax.scatter(E[:, 0], E[:, 1], s=42, facecolors="none", edgecolors="black", lw=0.8,
                   zorder=1, label="exact Pareto points")
    if supported is not None:
        H = _points(supported, "supported")
        H = H[np.argsort(H[:, 0], kind="stable")]
        ax.plot(H[:, 0], H[:, 1], "-", color="tab:blue", lw=1.0, zorder=2)
        ax.scatter(H[:, 0], H[:, 1], s=22, marker="s", facecolors="none",
                   edgecolors="tab:blue", lw=1.2, zorder=3, label="supported (hull vertices)")
    if sweep is not None:
        S = _points(sweep, "sweep")
        ax.scatter(S[:, 0], S[:, 1], s=6, color="0.35", zorder=4,
                   label="loss aggregation (weight sweep)")
    markers = "D^v*Pho"
    for m, (name, pt) in enumerate((label_points or {}).items()):
        q = check_array(pt, f"label_points[{name!r}]", ndim=1)
        if q.shape != (2,):
            raise ValueError(f"label_points[{name!r}] must be a point (AUC_1, AUC_2), got "
                             f"shape {q.shape}.")
        ax.scatter([q[0]], [q[1]], s=60, marker=markers[m % len(markers)], zorder=5,
                   color=f"C{(m + 1) % 10}", edgecolors="black", lw=0.5, alpha=0.85,
                   label=str(name))
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    save_figure(fig, path)
    return fig


def plot_auc_vs_skew(
    skews: ArrayLike,
    results: Mapping[str, ArrayLike],
    *,
    label_names: Sequence[str] | None = None,
    xlabel: str = "label skew",
    ylabel: str = "per-label AUC",
    ax: Axes | None = None,
    title: str | None = None,
    path: PathLike | Sequence[PathLike] | None = None,
) -> Figure:
    """Per-label AUC against label skew, one colour per method, one line style per label
    (docs/theory.md §7; LA25 §7).

    Parameters
    ----------
    skews : array-like (n_skews,)
    results : dict name -> array-like (n_skews, K) of AUCs (e.g. "loss aggregation",
        "label aggregation (sum)")
    label_names : K names (default "label 1", ...)

    Returns
    -------
    matplotlib.figure.Figure

    >>> fig = plot_auc_vs_skew([0.1, 0.3, 0.5], {"loss": [[0.9, 0.6], [0.85, 0.7], [0.8, 0.8]]})
    >>> len(fig.axes[0].lines)
    2
    """
    x = check_array(skews, "skews", ndim=1)
    if not results:
        raise ValueError("The 'results' parameter must hold at least one method.")
    arrays = {}
    for name, R in results.items():
        A = check_array(R, f"results[{name!r}]", ndim=2, finite=False)
        if A.shape[0] != len(x):
            raise ValueError(f"results[{name!r}] must have {len(x)} rows (one per skew), got "
                             f"shape {A.shape}.")
        arrays[name] = A
    K = next(iter(arrays.values())).shape[1]
    if any(A.shape[1] != K for A in arrays.values()):
        raise ValueError("Every entry of 'results' must have the same number of labels K.")
    names = list(label_names) if label_names is not None else [f"label {k + 1}" for k in range(K)]
    if len(names) != K:
        raise ValueError(f"The 'label_names' parameter must have {K} entries, got {len(names)}.")
    fig, ax = _new_axes(ax, (5.5, 4.0))
    styles = ["-", "--", ":", "-."]
    colors = [f"C{i}" for i in range(10)]
    from matplotlib.lines import Line2D

    for m, (_name, A) in enumerate(arrays.items()):
        for k in range(K):
            ax.plot(x, A[:, k], styles[k % len(styles)], marker="o", ms=3,
                    color=colors[m % len(colors)])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    # Two legends a reader can tell apart: colour = method, line style = label. They sit in a
    # band below the data (the y-axis is extended for it), so that no curve or marker is hidden.
    ncol = 2 if len(arrays) > 3 else 1
    rows = -(-len(arrays) // ncol) + 1  # legend rows, the title included
    finite = np.concatenate([A[np.isfinite(A)] for A in arrays.values()])
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        span = max(hi - lo, 0.05)
        ax.set_ylim(lo - span * (0.12 + 0.11 * rows), hi + 0.05 * span)
    methods = ax.legend([Line2D([], [], color=colors[m % len(colors)], lw=2)
                         for m in range(len(arrays))], list(arrays), fontsize="x-small",
                        title="method", title_fontsize="small", loc="lower left", ncol=ncol)
    ax.add_artist(methods)
    ax.legend([Line2D([], [], color="0.3", ls=styles[k % len(styles)]) for k in range(K)],
              names, fontsize="x-small", title="label", title_fontsize="small",
              loc="lower right")
    save_figure(fig, path)
    return fig


def default_partial_orders(
    pi_a: ArrayLike = (0.1, 0.5), pi_b: ArrayLike = (0.5, 0.1)
) -> dict[str, list[list[tuple[int, ...]]]]:
    """The four orders of LA25 Fig. 1, computed by :func:`bipartite.dictatorship.
    label_vector_order` from the Bayes scorers on deterministic labels (docs/theory.md §7).

    (a) loss aggregation with ``α_1 > α_2`` (priors ``pi_a``, a = 1), (b) with ``α_1 < α_2``
    (priors ``pi_b``), (c) label aggregation by sum, (d) by product.

    >>> list(default_partial_orders())[2]
    '(c) label aggregation: sum'
    """
    from bipartite.dictatorship import effective_weights, label_vector_order

    al_a, al_b = effective_weights(pi_a), effective_weights(pi_b)
    if not (al_a[0] > al_a[1] and al_b[0] < al_b[1]):
        raise ValueError("The priors must give α_1 > α_2 for pi_a and α_1 < α_2 for pi_b, got "
                         f"α = {al_a.tolist()} and {al_b.tolist()}.")
    return {
        "(a) loss aggregation, α₁ > α₂": label_vector_order("loss", pi=pi_a),
        "(b) loss aggregation, α₁ < α₂": label_vector_order("loss", pi=pi_b),
        "(c) label aggregation: sum": label_vector_order("sum", K=len(al_a)),
        "(d) label aggregation: product": label_vector_order("product", K=len(al_a)),
    }


def plot_partial_orders(
    orders: Mapping[str, Sequence[Sequence[tuple[int, ...]]]] | None = None,
    *,
    path: PathLike | Sequence[PathLike] | None = None,
) -> Figure:
    """Hasse diagrams of weak orders over label vectors (LA25 Fig. 1 a–d; docs/theory.md §7).

    Each panel draws the tiers from the **top** (highest-ranked) to the bottom; tied vectors
    share a row (joined by a dotted line) and every vector is joined to every vector of the next
    tier down (the covering relation of a weak order).

    Parameters
    ----------
    orders : dict title -> tiers (lowest tier first, as returned by
        :func:`bipartite.dictatorship.label_vector_order`); default
        :func:`default_partial_orders` (the four cases of Fig. 1).

    Returns
    -------
    matplotlib.figure.Figure with one panel per order.

    >>> fig = plot_partial_orders()
    >>> len(fig.axes)
    4
    """
    import matplotlib.pyplot as plt

    if orders is None:
        orders = default_partial_orders()
    if not orders:
        raise ValueError("The 'orders' parameter must hold at least one order.")
    fig, axes = plt.subplots(1, len(orders), squeeze=False, figsize=(3.0 * len(orders), 3.6),
                             layout="constrained")
    axes = axes[0]
    for ax, (title, tiers) in zip(axes, orders.items(), strict=True):
        tiers = [list(t) for t in tiers]
        if not tiers or any(not t for t in tiers):
            raise ValueError(f"The order {title!r} must be a non-empty list of non-empty tiers.")
        pos: dict[tuple[int, ...], tuple[float, float]] = {}
        for level, tier in enumerate(tiers):
            xs = np.linspace(-(len(tier) - 1) / 2, (len(tier) - 1) / 2, len(tier))
            for x, v in zip(xs, tier, strict=True):
                pos[tuple(v)] = (float(x), float(level))
        for level in range(len(tiers) - 1):
            for lo in tiers[level]:
                for hi in tiers[level + 1]:
                    (x0, y0), (x1, y1) = pos[tuple(lo)], pos[tuple(hi)]
                    ax.plot([x0, x1], [y0, y1], "-", color="0.5", lw=1.0, zorder=1)
        for tier in tiers:
            if len(tier) > 1:
                xs = [pos[tuple(v)][0] for v in tier]
                y = pos[tuple(tier[0])][1]
                ax.plot([min(xs), max(xs)], [y, y], ":", color="tab:red", lw=1.2, zorder=1)
        P = np.array(list(pos.values()))
        ax.scatter(P[:, 0], P[:, 1], s=900, color="white", edgecolors="black", zorder=2)
        for v, (x, y) in pos.items():
            ax.annotate("(" + ",".join(str(int(b)) for b in v) + ")", (x, y), ha="center",
                        va="center", fontsize=8, zorder=3)
        width = max(len(t) for t in tiers)
        ax.set_xlim(-width / 2 - 0.3, width / 2 + 0.3)
        ax.set_ylim(-0.6, len(tiers) - 0.4)
        ax.set_yticks(range(len(tiers)))
        ax.set_xticks([])
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("label vectors (dotted: tied)")
        ax.set_ylabel("tier (higher = ranked higher)")
    save_figure(fig, path)
    return fig
