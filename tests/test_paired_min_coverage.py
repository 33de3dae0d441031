"""The coverage simulation of the Min AUC and paired Min AUC intervals
(simulations/paired_min_coverage.py, docs/coverage.md "Choosing a scorer"): its tied setting is
a tie of the population values and the estimates converge to them; one replication yields every
interval it should. The full run is the script's, not the suite's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bipartite.diagnostics import diagnose
from tests._scripts import load_script


@pytest.fixture(scope="module")
def pm():
    return load_script("simulations/paired_min_coverage.py")


def test_the_tied_setting_ties_scorer_a_and_its_estimates_converge(pm):
    """Claim: in the tied setting scorer a's two population AUCs are equal (to 1e-12) and b's
    are not both equal to a's; on a 1 500-query sample every per-label AUC and both Min AUCs lie
    within 4.5 standard errors of the closed-form values."""
    p = pm.SETTINGS["tied"]
    T = pm.rc.truth(p)
    assert T["auc"]["a", "rel"] == pytest.approx(T["auc"]["a", "click"], abs=1e-12)
    assert T["auc"]["b", "rel"] < T["auc"]["a", "rel"] - 0.02
    D = pm.rc.simulate(np.random.default_rng(5), 1500, p=p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = diagnose(D, scores=["a", "b"], labels=["rel", "click"], qid="qid")
    for r in d.tables["auc"].itertuples():
        assert abs(r.auc - T["auc"][r.scorer, r.label]) < 4.5 * r.auc_se
    for r in d.tables["scorers"].itertuples():
        true = min(T["auc"][r.scorer, lab] for lab in ("rel", "click"))
        se = (r.min_auc_ci_high - r.min_auc_ci_low) / (2 * 1.96)
        assert abs(r.min_auc - true) < 4.5 * se


def test_one_replication_gives_every_interval(pm):
    out = pm.replicate(12, np.random.SeedSequence(1), n_boot=30)
    # 2 settings × (qid, no qid) × 4 methods × (2 Min AUC + 1 paired)
    assert len(out) == 2 * 2 * len(pm.METHODS) * 3
    assert {x[3] for x in out} == {"Min AUC", "paired Min AUC"}
    rows = pm.summarise({12: [out]})
    assert all(0 <= r["coverage"] <= 1 for r in rows)
