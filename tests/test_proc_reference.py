"""References from R's pROC (Robin et al., BMC Bioinformatics 2011): the McClish-corrected partial
AUC (:func:`bipartite.metrics.partial_auc`), DeLong's variance
(:func:`bipartite.diagnostics.delong_auc_variance`) and DeLong's paired test
(:func:`bipartite.diagnostics.delong_paired_test`).

One ``Rscript`` run computes every case (``roc(levels = c(0, 1), direction = "<")``: the class 1
scored higher, as here). The tests skip, with the reason, where ``Rscript`` or pROC is absent
(Debian: ``apt-get install r-cran-proc``; ``.ci/run`` installs it, so in CI they run).

Agreement pinned: 1e-12 for all of them, on continuous and on tied scores. Why so tight with
ties: pROC's curve has one point per distinct score (thresholds between them), joined by straight
segments, and its partial area interpolates that curve linearly at the boundary
``1 − max_fpr`` — the same curve and the same interpolation as ours (a tie group is one diagonal
segment), so only rounding separates the two; measured differences are below 1e-15 (40 random
cases, n up to 200). DeLong's placements count ties ½ in both. One documented difference:
pROC refuses the correction (NA, with a warning) when the partial area is below the diagonal's,
while :func:`~bipartite.metrics.partial_auc` returns McClish's value there, below 0.5, as
scikit-learn does; :func:`test_below_the_diagonal_proc_gives_na` pins it. pROC takes no sample
weights: the weighted partial AUC is checked against scikit-learn (tests/test_partial_auc.py).
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from bipartite.diagnostics import delong_auc_variance, delong_paired_test
from bipartite.metrics import partial_auc

R_SCRIPT = r"""
suppressMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
out <- list()
for (cid in unique(d$case)) {
  x <- d[d$case == cid, ]
  m <- x$max_fpr[1]
  r1 <- roc(x$y, x$s1, levels = c(0, 1), direction = "<", quiet = TRUE)
  r2 <- roc(x$y, x$s2, levels = c(0, 1), direction = "<", quiet = TRUE)
  pa <- suppressWarnings(as.numeric(auc(r1, partial.auc = c(1, 1 - m),
                                        partial.auc.focus = "specificity",
                                        partial.auc.correct = TRUE)))
  t <- roc.test(r1, r2, method = "delong", paired = TRUE)
  out[[length(out) + 1]] <- data.frame(case = cid, pauc = pa, auc = as.numeric(auc(r1)),
                                       var = var(r1, method = "delong"),
                                       z = unname(t$statistic), p = t$p.value)
}
write.csv(do.call(rbind, out), args[2], row.names = FALSE)
"""

TOL = 1e-12


def _rscript() -> str:
    exe = shutil.which("Rscript")
    if exe is None:
        pytest.skip("Rscript not found: R and pROC give the reference (Debian: apt-get install "
                    "r-cran-proc; .ci/run installs it)")
    probe = subprocess.run([exe, "-e", 'quit(status = !requireNamespace("pROC", quietly = TRUE))'],
                           capture_output=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip("the R package pROC is not installed (Debian: apt-get install r-cran-proc)")
    return exe


def _cases() -> pd.DataFrame:
    """40 seeded cases: n in 5..200, scores on 2, 3 or 5 levels (ties) or continuous, a second
    scorer for the paired test, max_fpr among fixed values and the curve's own corners k / N."""
    rng = np.random.default_rng(20261202)
    frames = []
    for c in range(40):
        n = int(rng.integers(5, 200))
        levels = (2, 3, 5, None)[c % 4]
        y = rng.integers(0, 2, n)
        y[:2] = (0, 1)
        if levels is None:
            s1, s2 = rng.normal(size=n) + y, rng.normal(size=n) + 0.5 * y
        else:
            s1 = rng.integers(0, levels, n) + y * rng.integers(0, 2, n)
            s2 = rng.integers(0, levels, n) + 0.0
        n_neg = int((y == 0).sum())
        m = (0.05, 0.1, 0.2, 0.37, 0.5, 0.8)[c % 6] if c % 5 else int(rng.integers(1, n_neg)) / n_neg
        frames.append(pd.DataFrame({"case": c, "y": y, "s1": s1.astype(float),
                                    "s2": s2.astype(float), "max_fpr": m}))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def proc(tmp_path_factory):
    """(cases, pROC's results by case) from one Rscript run."""
    exe = _rscript()
    folder = tmp_path_factory.mktemp("proc")
    cases = _cases()
    cases.to_csv(folder / "in.csv", index=False)
    (folder / "proc.R").write_text(R_SCRIPT)
    run = subprocess.run([exe, str(folder / "proc.R"), str(folder / "in.csv"),
                          str(folder / "out.csv")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return cases, pd.read_csv(folder / "out.csv").set_index("case")


def _each(proc):
    cases, ref = proc
    for c, g in cases.groupby("case"):
        yield g, ref.loc[c]


def test_partial_auc_equals_proc(proc):
    """McClish-corrected partial AUC, specificity in [1 − max_fpr, 1], tied and continuous
    scores, max_fpr at and between the curve's corners."""
    for g, r in _each(proc):
        m = float(g["max_fpr"].iloc[0])
        ours = partial_auc(g["y"], g["s1"], max_fpr=m)
        if np.isnan(r["pauc"]):  # pROC's NA below the diagonal: ours is below 0.5 there
            assert ours < 0.5
            continue
        assert ours == pytest.approx(r["pauc"], abs=TOL), (g["case"].iloc[0], m)


def test_delong_variance_equals_proc(proc):
    """``var(roc, method = "delong")`` and the AUC, ties ½."""
    for g, r in _each(proc):
        auc, var = delong_auc_variance(g["y"], g["s1"])
        assert auc == pytest.approx(r["auc"], abs=TOL)
        assert var == pytest.approx(r["var"], abs=TOL)


def test_delong_paired_test_equals_proc(proc):
    """``roc.test(r1, r2, method = "delong", paired = TRUE)``: the z statistic and its two-sided
    p-value."""
    for g, r in _each(proc):
        t = delong_paired_test(g["y"], g["s1"], g["s2"])
        assert t["z"] == pytest.approx(r["z"], abs=TOL * max(1.0, abs(r["z"])))
        assert t["p_value"] == pytest.approx(r["p"], abs=TOL)


def test_below_the_diagonal_proc_gives_na(tmp_path):
    """The one difference: a ranking worse than random at the top. pROC refuses the correction
    (NA, with a warning); partial_auc gives McClish's value, below 0.5, as scikit-learn does."""
    from sklearn.metrics import roc_auc_score

    exe = _rscript()
    y, s = [0, 0, 1, 1, 0, 1], [6.0, 5.0, 1.0, 2.0, 4.0, 3.0]
    cases = pd.DataFrame({"case": 0, "y": y, "s1": s, "s2": s[::-1], "max_fpr": 0.5})
    cases.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "proc.R").write_text(R_SCRIPT)
    run = subprocess.run([exe, str(tmp_path / "proc.R"), str(tmp_path / "in.csv"),
                          str(tmp_path / "out.csv")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert np.isnan(pd.read_csv(tmp_path / "out.csv")["pauc"].iloc[0])
    ours = partial_auc(y, s, max_fpr=0.5)
    assert ours < 0.5 and ours == pytest.approx(roc_auc_score(y, s, max_fpr=0.5), abs=TOL)
