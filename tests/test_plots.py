"""Figures render, carry the data they were given, have labelled axes, and save by suffix
(docs/theory.md §6, §7; LA25 Fig. 1)."""

from __future__ import annotations

import numpy as np
import pytest

from bipartite.bayes import label_aggregation
from bipartite.dictatorship import label_vector_order
from bipartite.plots import (
    default_partial_orders,
    plot_auc_vs_skew,
    plot_frontier,
    plot_partial_orders,
)
from bipartite.population import FiniteProblem, enumerate_weak_orders


def offsets(ax):
    """All scatter points of an Axes, stacked."""
    pts = [c.get_offsets() for c in ax.collections if len(c.get_offsets())]
    return np.vstack(pts) if pts else np.zeros((0, 2))


def line_points(ax):
    pts = [np.column_stack(ln.get_data()) for ln in ax.lines]
    return np.vstack(pts) if pts else np.zeros((0, 2))


def assert_labelled(ax):
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip()


@pytest.fixture(scope="module")
def frontier_arrays():
    """Exact frontier of a 5-point K = 2 problem by brute-force enumeration of all 541 weak
    orders (the plot takes arrays; the pareto module is not needed to build them), the sweep of
    loss-aggregation weights, and the label-aggregation points."""
    P = FiniteProblem.random(5, 2, seed=1)
    A = np.array([P.auc(f) for f in enumerate_weak_orders(5)])
    keep = [i for i in range(len(A))
            if not np.any(np.all(A >= A[i] - 1e-12, axis=1) & np.any(A > A[i] + 1e-12, axis=1))]
    exact = np.unique(np.round(A[keep], 12), axis=0)
    sweep = np.array([P.auc(P.eta @ (np.array([1 - t, t]) / (P.pi * (1 - P.pi))))
                      for t in np.linspace(0.01, 0.99, 25)])
    labels = {"label aggregation: sum": P.auc(label_aggregation(P)),
              "label aggregation: product": P.auc(label_aggregation(P, aggregate="product"))}
    return exact, sweep, labels


def test_plot_frontier_draws_every_input(frontier_arrays, tmp_path):
    exact, sweep, labels = frontier_arrays
    supported = exact[[0, -1]]  # any polyline through points
    fig = plot_frontier(exact=exact, supported=supported, sweep=sweep, label_points=labels,
                        path=[tmp_path / "f.png", tmp_path / "f.pdf"])
    ax = fig.axes[0]
    assert_labelled(ax)
    pts = offsets(ax)
    for p in [*exact, *sweep, *labels.values()]:
        assert np.any(np.all(np.isclose(pts, p), axis=1))
    np.testing.assert_allclose(line_points(ax), supported[np.argsort(supported[:, 0])])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "label aggregation: sum" in legend and "exact Pareto points" in legend
    for name in ("f.png", "f.pdf"):
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_frontier_with_the_pareto_module():
    from bipartite import pareto

    P = FiniteProblem.random(5, 2, seed=1)
    fig = plot_frontier(exact=pareto.exact_frontier(P), supported=pareto.supported_frontier(P),
                        sweep=pareto.weight_sweep(problem=P, n_weights=11))
    ax = fig.axes[0]
    assert len(offsets(ax)) >= 11 and len(line_points(ax)) >= 1


def test_plot_frontier_errors(tmp_path):
    with pytest.raises(ValueError, match="at least one"):
        plot_frontier()
    with pytest.raises(ValueError, match="'exact'"):
        plot_frontier(exact=[[0.5, 0.5, 0.5]])
    with pytest.raises(ValueError, match="'path'"):
        plot_frontier(exact=[[0.5, 0.5]], path=tmp_path / "f.jpg")


def test_plot_auc_vs_skew(tmp_path):
    skews = np.array([0.05, 0.1, 0.2, 0.35, 0.5])
    rng = np.random.default_rng(0)
    results = {"loss aggregation": rng.uniform(0.5, 1, (5, 2)),
               "label aggregation (sum)": rng.uniform(0.5, 1, (5, 2))}
    fig = plot_auc_vs_skew(skews, results, label_names=["rel", "click"], path=tmp_path / "s.svg")
    ax = fig.axes[0]
    assert_labelled(ax)
    assert len(ax.lines) == 4
    for ln, (name, k) in zip(ax.lines, [(m, k) for m in results for k in range(2)], strict=True):
        np.testing.assert_allclose(ln.get_xdata(), skews)
        np.testing.assert_allclose(ln.get_ydata(), results[name][:, k])
    assert (tmp_path / "s.svg").stat().st_size > 1000
    with pytest.raises(ValueError, match="rows"):
        plot_auc_vs_skew(skews, {"x": np.ones((4, 2))})


def test_plot_partial_orders_draws_fig1():
    orders = default_partial_orders()
    assert list(orders.values()) == [
        label_vector_order("loss", pi=[0.1, 0.5]), label_vector_order("loss", pi=[0.5, 0.1]),
        label_vector_order("sum"), label_vector_order("product")]
    fig = plot_partial_orders(orders)
    assert len(fig.axes) == 4
    for ax, tiers in zip(fig.axes, orders.values(), strict=True):
        assert_labelled(ax)
        assert len(offsets(ax)) == 4  # one node per label vector
        # node heights follow the tiers: label text -> y
        ys = {t.get_text(): t.xy[1] for t in ax.texts}
        for level, tier in enumerate(tiers):
            for v in tier:
                assert ys["(" + ",".join(map(str, v)) + ")"] == level
        # edges: every pair of consecutive tiers, plus one dotted line per tied tier
        n_edges = sum(len(a) * len(b) for a, b in zip(tiers, tiers[1:], strict=False))
        assert len(ax.lines) == n_edges + sum(len(t) > 1 for t in tiers)


# ------------------------------------------------------------------------------------------------
# Figures fit for a paper
# ------------------------------------------------------------------------------------------------
def _has_type3_fonts(pdf: bytes) -> bool:
    return b"/Type3" in pdf or b"/Subtype /Type3" in pdf


def test_the_type3_check_can_fail(tmp_path):
    """With matplotlib's default pdf.fonttype (3) the check fires: it is not vacuous."""
    import matplotlib

    from bipartite.plots import new_figure

    fig, ax = new_figure(figsize=(2, 2))
    ax.set_title("Type 3 text")
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        fig.savefig(tmp_path / "t3.pdf")
    assert _has_type3_fonts((tmp_path / "t3.pdf").read_bytes())


def test_saved_pdfs_embed_truetype_fonts_only(tmp_path):
    from bipartite.plots import plot_auc_vs_skew, plot_frontier, plot_partial_orders, save_figures

    figs = [plot_frontier(exact=[[0.9, 0.6], [0.8, 0.7]], label_points={"sum": [0.85, 0.66]}),
            plot_auc_vs_skew([0.1, 0.5], {"loss": [[0.9, 0.6], [0.8, 0.8]]}),
            plot_partial_orders()]
    for i, fig in enumerate(figs):
        (pdf,) = [p for p in save_figures(fig, tmp_path, f"f{i}") if p.suffix == ".pdf"]
        data = pdf.read_bytes()
        assert not _has_type3_fonts(data), pdf
        assert b"/FontFile2" in data  # an embedded TrueType font program


def test_plot_functions_return_figures_pyplot_knows_and_accept_ax():
    import matplotlib.pyplot as plt

    from bipartite.plots import plot_auc_vs_skew, plot_frontier

    fig = plot_frontier(exact=[[0.9, 0.6], [0.8, 0.7]])
    assert plt.fignum_exists(fig.number)  # plt.show() shows it
    plt.close(fig)
    host, ax = plt.subplots()
    assert plot_auc_vs_skew([0.1, 0.5], {"a": [[0.9, 0.6], [0.8, 0.8]]}, ax=ax) is host
    plt.close(host)


def test_skew_legends_tell_methods_and_labels_apart():
    import matplotlib.pyplot as plt

    from bipartite.plots import plot_auc_vs_skew

    res = {f"m{i}": [[0.9, 0.6], [0.8, 0.8]] for i in range(6)}
    fig = plot_auc_vs_skew([0.1, 0.5], res, label_names=["click", "rel"])
    legends = [a for a in fig.axes[0].get_children() if type(a).__name__ == "Legend"]
    texts = sorted([t.get_text() for t in lg.get_texts()] for lg in legends)
    assert texts == [["click", "rel"], [f"m{i}" for i in range(6)]]  # 2 + 6 entries, not 12
    plt.close(fig)
