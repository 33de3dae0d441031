"""bipartite.studies.report.paired_contrast, the one home of the paired contrast (the claims
registry's effects and the LA25 §7 verdict table), against a plain loop over the units."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest

from bipartite.studies.report import paired_contrast


def _frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"dataset": d, "split": s, "objective": o, "min": float(rng.uniform(0.5, 0.9))}
            for d in ("a", "b") for s in range(6) for o in ("t", "b1", "b2")]
    rows = [r for r in rows if not (r["dataset"] == "a" and r["split"] == 5
                                    and r["objective"] == "b2")]  # an incomplete unit
    rows[3]["min"] = float("nan")  # a NaN arm: dataset a, split 1, treatment
    return pd.DataFrame(rows)


def _reference(df, treatment, baselines, direction, dataset):
    diffs = []
    for split in sorted(set(df["split"])):
        vals = {}
        for r in df.itertuples():
            if r.dataset == dataset and r.split == split:
                vals[r.objective] = r.min
        if all(k in vals and not math.isnan(vals[k]) for k in [treatment, *baselines]):
            pick = max if direction == "higher" else min
            diffs.append(vals[treatment] - pick(vals[b] for b in baselines))
    agree = sum(d > 0 if direction == "higher" else d < 0 for d in diffs)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return statistics.fmean(diffs), se, agree, len(diffs)


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("baselines", [("b1",), ("b1", "b2")])
@pytest.mark.parametrize("dataset", ["a", "b"])
def test_paired_contrast_equals_a_loop_over_units(direction, baselines, dataset):
    df = _frame()
    got = paired_contrast(df, "min", "t", list(baselines) if len(baselines) > 1 else baselines[0],
                          direction=direction, where={"dataset": dataset})
    ref = _reference(df, "t", baselines, direction, dataset)
    assert got.effect == pytest.approx(ref[0], abs=1e-12)
    assert got.se == pytest.approx(ref[1], abs=1e-12)
    assert (got.agree, got.units) == ref[2:]
    assert got.units == (4 if dataset == "a" and len(baselines) == 2 else
                         5 if dataset == "a" else 6)
    # the per-unit differences, indexed by split: their mean is the effect
    assert len(got.differences) == got.units
    assert got.differences.mean() == pytest.approx(ref[0], abs=1e-12)
    assert set(got.differences.index) <= set(range(6))


def test_paired_contrast_refuses_what_cannot_give_a_contrast():
    df = _frame()
    with pytest.raises(ValueError, match="'direction'.*'up'"):
        paired_contrast(df, "min", "t", "b1", direction="up")
    with pytest.raises(ValueError, match=r"no column\(s\) \['auc'\]"):
        paired_contrast(df, "auc", "t", "b1")
    with pytest.raises(ValueError, match="several rows for"):
        paired_contrast(df, "min", "t", "b1")  # two datasets share each split
    with pytest.raises(ValueError, match=r"no rows with objective in \['zz'\]"):
        paired_contrast(df, "min", "t", "zz", where={"dataset": "a"})
    one = df[(df["dataset"] == "a") & (df["split"] == 1)]
    with pytest.raises(ValueError, match="no split has every arm"):
        paired_contrast(one, "min", "t", "b1")
