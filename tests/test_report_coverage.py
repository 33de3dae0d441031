"""The coverage simulation of the report's intervals (simulations/report_coverage.py, issue 26
item 3, docs/coverage.md): its closed-form population values against large samples, its
coverage arithmetic against a hand count, the pipeline at a small size, and the docs table and
the code's measured coverage (``MEASURED_COVERAGE``) agreeing."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from bipartite.diagnostics import _intervals as iv
from bipartite.diagnostics import diagnose
from tests._scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def rc():
    return load_script("simulations/report_coverage.py")


def test_closed_form_truth_matches_large_samples(rc):
    """Claim: the closed-form population values are what the estimators converge to: on a
    1 500-query sample each estimate lies within 4.5 standard errors of its value (independent
    rows: DeLong's se; clustered rows: the query bootstrap's)."""
    T = rc.truth()
    iid = rc.simulate(np.random.default_rng(11), 1500, clustered=False)
    d = diagnose(iid, scores=["a", "b"], labels=["rel", "click"], n_boot=0)
    for r in d.tables["auc"].itertuples():
        assert abs(r.auc - T["auc"][r.scorer, r.label]) < 4.5 * r.auc_se
    for r in d.tables["win_rates"].itertuples():
        assert abs(r.win_rate - T["win"][r.scorer]) < 4.5 * r.se
    for r in d.tables["paired"].itertuples():
        true = T["auc"][r.scorer_a, r.label] - T["auc"][r.scorer_b, r.label]
        assert abs(r.diff - true) < 4.5 * r.se
    cl = rc.simulate(np.random.default_rng(12), 1500)
    d = diagnose(cl, scores=["a", "b"], labels=["rel", "click"], qid="qid")
    for r in d.tables["auc"].itertuples():
        assert abs(r.auc - T["auc"][r.scorer, r.label]) < 4.5 * r.auc_se
        assert abs(r.gauc - T["gauc"][r.scorer, r.label]) < 4.5 * r.gauc_se
    # the values are not trivially equal: the labels and the two gAUC definitions differ
    assert T["auc"]["a", "rel"] - T["auc"]["a", "click"] > 0.05
    assert T["gauc"]["a", "click"] != T["auc"]["a", "click"]
    assert T["min"]["a"] == T["auc"]["a", "click"]


def test_truth_by_monte_carlo_integration(rc):
    """Claim: the closed forms equal a direct Monte-Carlo integration of the model's pair
    probabilities (two independent draws of the positive's and negative's documents)."""
    p, T = rc.PARAMS, rc.truth()
    rng = np.random.default_rng(0)
    m = 2_000_000

    def doc(rel, click, delta):
        return delta * rel + p["gamma"] * click + rng.normal(size=m)

    pr = p["pi_rel"]
    # AUC(click), pooled: a click document against a non-click one from another query
    ri, rj = rng.random(m) < pr, rng.random(m) < pr
    si = doc(ri, 1, rng.normal(p["mu"], p["sigma"], m))
    sj = doc(rj, 0, rng.normal(p["mu"], p["sigma"], m))
    est = np.mean(si > sj)
    assert abs(est - T["auc"]["a", "click"]) < 5 * math.sqrt(est * (1 - est) / m)
    # W(rel > click): a rel-only document against a click-only one
    si = doc(1, 0, rng.normal(p["mu"], p["sigma"], m))
    sj = doc(0, 1, rng.normal(p["mu"], p["sigma"], m))
    est = np.mean(si > sj)
    assert abs(est - T["win"]["a"]) < 5 * math.sqrt(est * (1 - est) / m)
    # gAUC(click): both documents of one query (one δ)
    dq = rng.normal(p["mu"], p["sigma"], m)
    est = np.mean(doc(ri, 1, dq) > doc(rj, 0, dq))
    assert abs(est - T["gauc"]["a", "click"]) < 5 * math.sqrt(est * (1 - est) / m)


def test_summarise_counts_by_hand(rc):
    """Claim: coverage is the mean over replications of each report's share of covering
    intervals (undefined ones left out and counted), and its Monte-Carlo se the spread of those
    shares over √R."""
    reps = [{"cells": [(("qid", "t"), {"AUC": [(True, 0.1), (False, 0.3)]})]},
            {"cells": [(("qid", "t"), {"AUC": [(True, 0.2), None]})]},
            {"cells": [(("qid", "t"), {"AUC": [(True, 0.2), (True, 0.2)]})]}]
    (row,) = rc.summarise({5: reps})
    shares = [0.5, 1.0, 1.0]
    assert row["coverage"] == pytest.approx(np.mean(shares))
    assert row["mc_se"] == pytest.approx(np.std(shares, ddof=1) / math.sqrt(3))
    assert row["mean_width"] == pytest.approx(0.2)
    assert row["undefined"] == pytest.approx(1 / 6)
    both = [row, {**row, "quantity": "Diff AUC", "coverage": 0.1}]
    assert rc.min_coverage(both) == {"t": {5: 0.1}}
    assert rc.min_coverage(both, exclude=("Diff AUC",)) == {"t": {5: pytest.approx(5 / 6)}}


def test_the_pipeline_at_a_small_size(rc):
    res = rc.run({5: 2, 12: 2}, n_boot=30, sizes=(5, 12), jobs=1, progress=False)
    rows = res["rows"]
    for scen, quantities in rc.QUANTITIES.items():
        methods = rc.METHODS if scen != "clustered_no_qid" else tuple(
            m for m in rc.METHODS if m.startswith("analytic/"))
        for m in methods:
            for q in quantities:
                for Q in (5, 12):
                    (r,) = [x for x in rows if (x["scenario"], x["method"], x["quantity"],
                                                x["queries"]) == (scen, m, q, Q)]
                    assert 0 <= r["coverage"] <= 1 and r["replications"] == 2
    assert set(res["min_coverage"]) == set(rc.METHODS)
    md = rc.markdown(rows, "python simulations/report_coverage.py --quick")
    assert md.count("| paired ΔgAUC |") == len(rc.METHODS) and "--quick" in md


def test_the_docs_table_is_the_measured_coverage_in_the_code():
    """Claim: docs/coverage.md's ``min_coverage`` lines (printed by the simulation) are the
    numbers of ``MEASURED_COVERAGE``, and the page names the command that regenerates them."""
    text = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    found = dict(re.findall(r"min_coverage '([\w/]+)': (\{[^}]*\})", text))
    assert set(found) == set(iv.MEASURED_COVERAGE)
    for m, v in found.items():
        assert eval(v) == {q: round(c, 3) for q, c in iv.MEASURED_COVERAGE[m].items()}  # noqa: S307
    assert "python simulations/report_coverage.py" in text


@pytest.mark.slow
def test_the_quick_command_writes_its_tables(rc, tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert rc.main(["--quick", "--jobs", "1", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "coverage.json").exists() and (tmp_path / "coverage.md").exists()
    assert "min_coverage 'bootstrap/bca'" in capsys.readouterr().out
