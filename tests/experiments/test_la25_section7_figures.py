"""LA25 §7 figures are legible: one colour per learner, the same in every figure; small
multiples (a panel per regime, or per learner on real data); one short legend per figure (a
colour per learner, a marker per objective), never an entry per (learner, objective)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D

from bipartite.experiments.la25.figures.section7 import (
    LEARNER_COLOURS,
    OBJECTIVE_MARKERS,
    gap_figures,
    learner_colour,
    plot_section7_data,
    plot_synthetic_plane,
    plot_synthetic_skew,
    section7_data_figures,
    synthetic_figures,
)

REGIMES = ("independent", "negative", "nested")
SYN_LEARNERS = ("linear", "mlp", "xgb")
DATA_LEARNERS = ("linear", "linear_hinge", "mlp", "xgb")
OBJECTIVES = ("label_1", "label_2", "label_aggregation", "loss_aggregation", "max_min",
              "max_min_plugin")


def _row(rng, **kw) -> dict:
    a1, a2 = rng.uniform(0.55, 0.95, 2)
    return {**kw, "auc_1": a1, "auc_2": a2, "diff": abs(a1 - a2), "min": min(a1, a2)}


@pytest.fixture(scope="module")
def synthetic() -> pd.DataFrame:
    """A §7 synthetic results frame: Bayes rows at three priors, learners at the most skewed
    one, two replicates, and the Bayes weight sweep's frontier (column ``t``)."""
    rng = np.random.default_rng(0)
    rows = []
    for regime, rep in itertools.product(REGIMES, range(2)):
        for pi2 in (0.02, 0.1, 0.5):
            for obj in ("loss_aggregation", "label_aggregation", "max_min"):
                rows.append(_row(rng, regime=regime, pi2=pi2, replicate=rep, learner="bayes",
                                 objective=obj))
            for t in np.linspace(0, 1, 5):
                rows.append(_row(rng, regime=regime, pi2=pi2, replicate=rep, learner="bayes",
                                 objective="frontier", t=t))
        for learner, obj in itertools.product(SYN_LEARNERS, OBJECTIVES):
            rows.append(_row(rng, regime=regime, pi2=0.02, replicate=rep, learner=learner,
                             objective=obj))
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def bank() -> pd.DataFrame:
    """A §7 real-data results frame: four learners, every objective of the figure, three
    splits, and the XGBoost plug-in sweep and points."""
    rng = np.random.default_rng(1)
    common = {"dataset": "bank_marketing", "label_1": "mortgage", "label_2": "personal_loan",
              "pi_1": 0.55, "pi_2": 0.16}
    rows = [_row(rng, **common, learner=lr, objective=obj, split=s)
            for lr, obj, s in itertools.product(DATA_LEARNERS, OBJECTIVES, range(3))]
    rows += [_row(rng, **common, learner="xgb_plugin", objective="sweep", split=s, t=t)
             for s, t in itertools.product(range(3), np.linspace(0, 1, 5))]
    rows += [_row(rng, **common, learner="xgb_plugin", objective=obj, split=s)
             for s, obj in itertools.product(range(3), ("plugin_label_aggregation",
                                                         "plugin_loss_aggregation"))]
    return pd.DataFrame(rows)


def _data_artists(fig):
    """``(axes, learner, objective, rgba)`` of every artist a figure tags ``learner:objective``
    (the data points and lines; references such as the frontier carry other tags)."""
    out = []
    for ax in fig.axes:
        for art in [*ax.get_lines(), *ax.collections]:
            gid = art.get_gid()
            if not gid or ":" not in gid or gid.startswith(("paper:", "xgb_plugin:")):
                continue
            learner, obj = gid.split(":")
            if isinstance(art, Line2D):
                colour = art.get_color()
            else:  # a scatter's face, or an error bar's edge
                face = art.get_facecolor()
                colour = face[0] if len(face) else art.get_edgecolor()[0]
            out.append((ax, learner, obj, to_rgba(colour)))
    return out


def _legend_labels(fig) -> list[str]:
    assert len(fig.legends) == 1, "one figure legend, not one per panel"
    assert all(ax.get_legend() is None for ax in fig.axes)
    return [t.get_text() for t in fig.legends[0].get_texts()]


def _legend_colour(fig, label: str):
    legend = fig.legends[0]
    for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True):
        if text.get_text() == label:
            return to_rgba(handle.get_color())
    raise AssertionError(f"no legend entry {label!r}")


def test_learner_colours_are_distinct():
    named = [learner_colour(lr) for lr in ("bayes", "linear", "linear_hinge", "mlp", "xgb")]
    assert len({to_rgba(c) for c in named}) == len(named)
    assert learner_colour("mlp") == LEARNER_COLOURS["mlp"]


@pytest.mark.parametrize("col", ["diff", "min"])
def test_skew_panels_colour_each_learner(synthetic, col):
    fig = plot_synthetic_skew(synthetic, col)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == [r.replace("_", " ") for r in REGIMES]
    arts = _data_artists(fig)
    # every learner (Bayes included) and both LA25 objectives in every panel, in its colour
    seen = {(ax, lr, obj) for ax, lr, obj, _ in arts if obj != "max_min"}
    assert seen == set(itertools.product(visible, ("bayes", *SYN_LEARNERS),
                                         ("loss_aggregation", "label_aggregation")))
    for _, learner, obj, rgba in arts:
        if obj != "max_min":
            assert rgba == to_rgba(LEARNER_COLOURS[learner]), (learner, obj)
    # the colour tells the learner: one colour per learner, not one per objective
    by_colour = {}
    for _, learner, obj, rgba in arts:
        if obj != "max_min":
            by_colour.setdefault(rgba, set()).add(learner)
    assert all(len(v) == 1 for v in by_colour.values()) and len(by_colour) == 4
    assert any(obj == "max_min" for *_, obj, _ in arts) == (col == "min")
    labels = _legend_labels(fig)
    assert len(labels) <= 8
    assert {"Bayes", "linear, logistic", "MLP", "XGBoost"} <= set(labels)


def test_skew_panels_refuse_an_unknown_quantity(synthetic):
    with pytest.raises(ValueError, match="'col'.*'auc'"):
        plot_synthetic_skew(synthetic, "auc")


def test_plane_markers_tell_objectives_colours_tell_learners(synthetic):
    fig = plot_synthetic_plane(synthetic)
    arts = _data_artists(fig)
    assert {(lr, obj) for _, lr, obj, _ in arts} == {
        *(("bayes", o) for o in ("loss_aggregation", "label_aggregation", "max_min")),
        *itertools.product(SYN_LEARNERS, OBJECTIVES)}
    for _, learner, _, rgba in arts:
        assert rgba[:3] == to_rgba(LEARNER_COLOURS[learner])[:3]
    labels = _legend_labels(fig)
    # 4 learners + 6 objectives + frontier + diagonal: not 4 x 6 (learner, objective) entries
    assert len(labels) == 4 + len(OBJECTIVES) + 2
    assert {OBJECTIVE_MARKERS[o][1] for o in OBJECTIVES} <= set(labels)


def test_real_data_figure_has_one_panel_per_learner(bank):
    fig = plot_section7_data(bank)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["linear, logistic", "linear, hinge", "MLP",
                                                  "XGBoost"]
    arts = _data_artists(fig)
    for ax, learner, _, rgba in arts:
        assert ax.get_title() == {"linear": "linear, logistic", "linear_hinge": "linear, hinge",
                                  "mlp": "MLP", "xgb": "XGBoost"}[learner]
        assert rgba[:3] == to_rgba(LEARNER_COLOURS[learner])[:3]
    assert len({(lr, obj) for _, lr, obj, _ in arts}) == len(DATA_LEARNERS) * len(OBJECTIVES)
    for ax in visible:  # the references in every panel: the sweep and the paper's points
        gids = {a.get_gid() for a in [*ax.get_lines(), *ax.collections]}
        assert "sweep" in gids and "paper:loss_aggregation" in gids
    labels = _legend_labels(fig)
    assert len(labels) <= 12
    assert "LA25 reported (marker: objective)" in labels


def test_a_learner_has_one_colour_in_every_figure(synthetic, bank):
    figs = [plot_synthetic_skew(synthetic, "min"), plot_synthetic_plane(synthetic)]
    for fig in figs:
        for learner, name in (("mlp", "MLP"), ("xgb", "XGBoost"), ("linear", "linear, logistic")):
            assert _legend_colour(fig, name)[:3] == to_rgba(LEARNER_COLOURS[learner])[:3]
    data = {lr: rgba[:3] for _, lr, _, rgba in _data_artists(plot_section7_data(bank))}
    assert data == {lr: to_rgba(LEARNER_COLOURS[lr])[:3] for lr in DATA_LEARNERS}


@pytest.mark.slow  # saves four figures as PNG and PDF
def test_figures_are_written(synthetic, bank, tmp_path):
    paths = synthetic_figures(synthetic, tmp_path) + section7_data_figures(bank, tmp_path)
    assert sorted(p.name for p in paths) == sorted(
        f"la25_section7_{n}.{ext}" for n in ("diff", "min", "plane", "bank_marketing")
        for ext in ("png", "pdf"))
    assert all(p.stat().st_size > 0 for p in paths)


def test_gap_figure_colours_routes_by_learner(tmp_path):
    rng = np.random.default_rng(2)
    rows = [{"objective": "loss_aggregation", "route": route, "n_train": n, "pi2": 0.02,
             "max_abs_gap": rng.uniform(0, 0.05), "gap_win_12": rng.uniform(-0.05, 0.05)}
            for route in ("xgb-plugin", "xgb-pairwise", "mlp-plugin")
            for n in (4000, 16000) for _ in range(2)]
    rows += [{"objective": "loss_aggregation", "route": "population-logistic", "n_train": 0,
              "pi2": 0.02, "max_abs_gap": 0.01, "gap_win_12": 0.02}]
    (png, _pdf) = gap_figures(pd.DataFrame(rows), tmp_path)
    assert png.name == "la25_section7_gap_loss_aggregation.png" and png.stat().st_size > 0
