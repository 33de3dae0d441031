"""The out-of-core report (bipartite/diagnostics/_dask_report.py): :func:`diagnose` and
``bipartite report`` on a Parquet folder, glob or list of files, or a dask DataFrame, give the
**same tables** as the in-memory report on the same rows — every number to 1e-12 (relative), every
other cell equal — for analytic intervals, the query bootstrap (percentile) and BCa (the
jackknife), each gAUC weighting; the near-tie rates, not computed out of core, are NaN with a
note; what cannot be done out of core is an error naming the parameter.

The reference is the in-memory report (itself tested against scikit-learn, O(n²) double loops
and brute force in tests/test_diagnostics*.py).
"""

from __future__ import annotations

import json
import os
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the out-of-core "
                         "report runs on dask.dataframe)")

from bipartite.diagnostics import diagnose, is_out_of_core  # noqa: E402
from bipartite.diagnostics._dask_report import NEAR_TIE_NOTE  # noqa: E402

RTOL = 1e-12
SCORES, LABELS = ["a", "b"], ["rel", "click"]


def _data(n, G, seed=0):
    """Two labels (correlated), a continuous and a heavily tied scorer, integer weights with
    zeros, queries of unequal sizes (some with one class)."""
    rng = np.random.default_rng(seed)
    q = np.sort(rng.integers(0, G, size=n))
    rel = (rng.random(n) < rng.beta(2, 5, size=G)[q]).astype(np.int8)
    click = (rng.random(n) < 0.05 + 0.4 * rel).astype(np.int8)
    return pd.DataFrame({"qid": q, "rel": rel, "click": click,
                         "a": rel + 0.5 * click + rng.normal(size=n),
                         "b": np.round(0.3 * rel + 0.8 * click + rng.normal(size=n), 1),
                         "w": rng.integers(0, 4, size=n).astype(np.float64)})


def _write(df, folder, parts):
    os.makedirs(folder, exist_ok=True)
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        df.iloc[chunk].to_parquet(os.path.join(folder, f"part-{i:03d}.parquet"),
                                  row_group_size=max(1, len(chunk) // 3))
    return folder


def _run(data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return diagnose(data, SCORES, LABELS, qid="qid", weight="w", **kw)


def _same(mem, ooc):
    """Every table of the two reports equal: floats to RTOL, NaN where NaN, other cells equal;
    the near-tie rates NaN out of core with the note (where W is defined)."""
    assert set(mem.tables) == set(ooc.tables)
    for name, A in mem.tables.items():
        B = ooc.tables[name]
        assert list(A.columns) == list(B.columns), name
        assert A.shape == B.shape, name
        for c in A.columns:
            if name == "win_rates" and c == "near_tie_rate":
                assert np.isnan(B[c].to_numpy(float)).all()
                continue
            if name == "win_rates" and c == "note":
                for x, y, W in zip(A[c], B[c], A["win_rate"], strict=True):
                    want = [t for t in (x, NEAR_TIE_NOTE if np.isfinite(W) else None) if t]
                    assert (y or None) == ("; ".join(want) or None)
                continue
            if pd.api.types.is_float_dtype(A[c]):
                x, y = A[c].to_numpy(float), B[c].to_numpy(float)
                assert np.array_equal(np.isfinite(x), np.isfinite(y)), (name, c)
                ok = np.isfinite(x)
                np.testing.assert_allclose(y[ok], x[ok], rtol=RTOL, atol=0, err_msg=f"{name}.{c}")
            else:
                xs = [None if v is None or v != v else v for v in A[c]]
                ys = [None if v is None or v != v else v for v in B[c]]
                assert xs == ys, (name, c)
    keep = {k: v for k, v in mem.meta.items() if k != "source"}
    assert keep == {k: v for k, v in ooc.meta.items() if k not in ("source", "out_of_core")}
    assert "near-tie" in ooc.meta["out_of_core"]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    df = _data(30_000, 300, seed=1)
    return df, _write(df, str(tmp_path_factory.mktemp("ooc") / "data"), parts=4)


@pytest.mark.parametrize("kw", [
    {"n_boot": 0},
    {"n_boot": 0, "interval": "wald", "gauc_weighting": "uniform", "level": 0.9},
    {"n_boot": 150, "interval": "percentile", "gauc_weighting": "impressions", "seed": 3},
    {"n_boot": 150, "interval": "bca", "seed": 4},
])
def test_folder_report_equals_in_memory_report(small, kw):
    """Claim: the report from a Parquet folder equals the in-memory report of the same rows,
    every table (AUC, gAUC, W_{k>j}, Min/Diff AUC, labels and dictator, per-query AUCs, paired
    tests, dictatorship), with analytic, bootstrap and BCa intervals."""
    df, folder = small
    _same(_run(df, **kw), _run(folder, **kw))


def test_glob_list_and_dask_frame_give_the_same_report(small):
    """Claim: a glob, a list of files and a dask DataFrame are read out of core alike."""
    df, folder = small
    mem = _run(df)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    for data in (os.path.join(folder, "*.parquet"), files,
                 dd.from_pandas(df, npartitions=5)):
        assert is_out_of_core(data)
        _same(mem, _run(data))


def test_is_out_of_core(small, tmp_path):
    df, folder = small
    one = os.path.join(folder, "part-000.parquet")
    assert is_out_of_core(folder) and is_out_of_core(os.path.join(folder, "*.parquet"))
    assert not is_out_of_core(one) and not is_out_of_core(df) and not is_out_of_core("-")
    assert not is_out_of_core({"a": [1.0]}) and not is_out_of_core([])
    assert not is_out_of_core(str(tmp_path / "missing.csv"))


def test_string_query_ids_and_one_file_with_a_scheduler(small, tmp_path):
    """Claim: string query ids keep the in-memory (sorted) query order, so the bootstrap draws
    the same queries; one file is read out of core when a scheduler is given."""
    distributed = pytest.importorskip("distributed", reason="distributed is not installed")
    df = small[0].iloc[:8000].copy()
    df["qid"] = "q" + df["qid"].astype(str)
    path = str(tmp_path / "one.parquet")
    df.to_parquet(path)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=None) as client:
        _same(_run(df, n_boot=50, interval="percentile"),
              _run(path, n_boot=50, interval="percentile", scheduler=client))


def test_what_cannot_be_done_out_of_core_is_an_error(small):
    df, folder = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="needs query ids"):
            diagnose(folder, SCORES, LABELS)
        with pytest.raises(ValueError, match="positive_label"):
            diagnose(folder, SCORES, LABELS, qid="qid", positive_label=1)
        with pytest.raises(ValueError, match="dropna"):
            diagnose(folder, SCORES, LABELS, qid="qid", dropna=True)
        with pytest.raises(ValueError, match="no column 'nope'"):
            diagnose(folder, ["nope"], LABELS, qid="qid")
        with pytest.raises(ValueError, match="n_boot"):  # checked before anything is read
            diagnose(folder, SCORES, LABELS, qid="qid", n_boot=1)


def test_a_bad_value_names_its_file_and_row(tmp_path):
    df = _data(2000, 20)
    df.loc[1234, "click"] = 2
    folder = _write(df, str(tmp_path / "bad"), parts=2)
    with pytest.raises(ValueError, match=r"'click'.*2\.0.*row 234 of the Parquet file .*part-001"):
        _run(folder)


def test_cli_report_on_a_glob_equals_the_in_memory_cli_report(small, tmp_path, capsys):
    """Claim: ``bipartite report`` on a quoted glob (a local cluster) prints the JSON of the
    in-memory report of the same rows, near-tie rates aside."""
    pytest.importorskip("distributed", reason="distributed is not installed")
    from bipartite.cli import main

    df = small[0].iloc[:6000]
    folder = _write(df, str(tmp_path / "cli"), parts=3)
    one = str(tmp_path / "all.parquet")
    df.to_parquet(one)
    args = ["--score", "a", "--score", "b", "--label", "rel", "--label", "click", "--qid",
            "qid", "--weight", "w", "--format", "json", "--no-progress"]
    assert main(["report", one, *args]) == 0
    mem = json.loads(capsys.readouterr().out)
    assert main(["report", os.path.join(folder, "*.parquet"), *args, "--workers", "1",
                 "--memory-limit", "1GB"]) == 0
    ooc = json.loads(capsys.readouterr().out)
    for name in ("auc", "summary", "labels", "paired", "dictatorship", "per_query"):
        assert len(mem[name]) == len(ooc[name]), name
        for r, s in zip(mem[name], ooc[name], strict=True):
            for k, v in r.items():
                if isinstance(v, float):
                    assert s[k] == pytest.approx(v, rel=RTOL, abs=1e-15), (name, k)
                elif k != "note":
                    assert s[k] == v, (name, k)
    assert [r["win_rate"] for r in ooc["win_rates"]] == pytest.approx(
        [r["win_rate"] for r in mem["win_rates"]], rel=RTOL)
    assert all(r["near_tie_rate"] is None for r in ooc["win_rates"])


def test_cli_cluster_options_are_checked(small, capsys):
    from bipartite.cli import main

    df, folder = small
    base = ["report", folder, "--score", "a", "--label", "rel", "--qid", "qid"]
    assert main([*base, "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    assert main([*base, "--workers", "1", "--memory-limit", "lots"]) == 2
    assert "--memory-limit" in capsys.readouterr().err
    assert main([*base, "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"]) == 2
    assert "do not apply with --scheduler" in capsys.readouterr().err
    one = os.path.join(folder, "part-000.parquet")
    assert main(["report", one, "--score", "a", "--label", "rel", "--workers", "2"]) == 2
    assert "out of core only" in capsys.readouterr().err


@pytest.mark.slow
def test_three_million_rows_in_six_parquet_files(tmp_path):
    """Claim: at 3·10⁶ rows in six files (6·10⁴ queries) the out-of-core report equals the
    in-memory one, analytic and with the query bootstrap."""
    df = _data(3_000_000, 60_000, seed=7)
    folder = _write(df, str(tmp_path / "big"), parts=6)
    for kw in ({"n_boot": 0}, {"n_boot": 100, "interval": "percentile"}):
        _same(_run(df, **kw), _run(folder, **kw))


@pytest.mark.parametrize("layout", ["whole", "boundaries", "shuffled"])
def test_every_query_layout_gives_the_same_report(small, tmp_path, layout):
    """Claim: the within-query sums are exact whether every query is whole in one partition
    (no shuffle), a few queries straddle partitions (only their rows are shuffled) or the rows
    are in random order (all rows shuffled by query id)."""
    df = small[0].iloc[:12_000]
    if layout == "whole":  # each file whole queries, one row group each
        data = str(tmp_path / "w")
        os.makedirs(data)
        for i, part in enumerate(np.array_split(np.unique(df["qid"]), 3)):
            df[df["qid"].isin(part)].to_parquet(os.path.join(data, f"p{i}.parquet"))
    elif layout == "boundaries":
        data = dd.from_pandas(df, npartitions=7, sort=False)
    else:
        data = dd.from_pandas(df.sample(frac=1.0, random_state=0), npartitions=5, sort=False)
    _same(_run(df, n_boot=40, interval="percentile"), _run(data, n_boot=40, interval="percentile"))


# --------------------------------------------------------------------------------------------
# queries whose weights span more than 2^400: each query's AUC scale-free (issue 35, item 3)
# --------------------------------------------------------------------------------------------
FIX_Y = [0, 1, 0, 1, 1, 0, 0, 1]
FIX_S = [0.125, 0.5, 0.375, 0.875, 0.25, 0.625, 0.125, 0.75]
FIX_Q = [0, 0, 0, 0, 1, 1, 1, 1]


def _exact_query_aucs(y, s, q, w):
    """Per query (P_q, N_q, W_q, AUC_q) as Fractions, by the double loop over its pairs (ties
    ½); the float weights are exact Fractions."""
    out = {}
    for g in sorted(set(q)):
        rows = [i for i in range(len(y)) if q[i] == g]
        wf = {i: Fraction(w[i]) for i in rows}
        P = sum(wf[i] for i in rows if y[i] == 1)
        N = sum(wf[i] for i in rows if y[i] == 0)
        num = sum(wf[i] * wf[j] * (1 if s[i] > s[j] else Fraction(1, 2) if s[i] == s[j] else 0)
                  for i in rows if y[i] == 1 for j in rows if y[j] == 0)
        out[g] = (P, N, P + N, num / (P * N))
    return out


@pytest.mark.parametrize("cut", [3, 4, 5])
def test_queries_of_weights_1e300_and_1e_300_keep_their_aucs(tmp_path, cut):
    """Claim (issue 35, item 3): out of core, each query's AUC and the gAUCs are taken
    scale-free per query, as in memory: a query of weights 1e-300 beside one of 1e300 keeps its
    AUC. Counterexample pinned: query 1 read NaN ("query has no positive") and the uniform gAUC
    1.0 (true 0.875). Two Parquet files cut after row ``cut`` (3, 5: a query in both files,
    its largest weight reduced over them; 4: each query whole). Reference: exact Fractions by
    the double loop, to rounding (the products of the float weights 1e±300 round: 1e-15), and
    the in-memory report (every table, to 1e-12)."""
    w = [1e300] * 4 + [1e-300] * 4
    df = pd.DataFrame({"a": FIX_S, "b": FIX_S[::-1], "rel": FIX_Y, "click": FIX_Y[::-1],
                       "qid": FIX_Q, "w": w})
    folder = str(tmp_path / "fix")
    os.makedirs(folder)
    df.iloc[:cut].to_parquet(os.path.join(folder, "p0.parquet"))
    df.iloc[cut:].to_parquet(os.path.join(folder, "p1.parquet"))
    exact = _exact_query_aucs(FIX_Y, FIX_S, FIX_Q, w)
    lam = {"pairs": {g: P * N for g, (P, N, _, _) in exact.items()},
           "uniform": dict.fromkeys(exact, Fraction(1)),
           "impressions": {g: W for g, (_, _, W, _) in exact.items()}}
    for weighting, lq in lam.items():
        mem = _run(df, gauc_weighting=weighting)
        ooc = _run(folder, gauc_weighting=weighting)
        _same(mem, ooc)
        pq = ooc.tables["per_query"]
        got = pq[(pq["scorer"] == "a") & (pq["label"] == "rel")]
        np.testing.assert_allclose(got["auc"].to_numpy(float),
                                   [float(exact[g][3]) for g in (0, 1)], rtol=1e-15, atol=0)
        assert got["n_pos"].tolist() == [2, 2] and got["note"].isna().all()
        gauc = sum(lq[g] * exact[g][3] for g in exact) / sum(lq.values())
        row = ooc.tables["auc"].query("scorer == 'a' and label == 'rel'")
        assert row["gauc"].iloc[0] == pytest.approx(float(gauc), rel=1e-15, abs=0)
        if weighting == "uniform":
            assert float(gauc) == 0.875  # (1 + 3/4) / 2
    assert float(gauc) == 1.0  # impressions: query 1's weight is 1e-600 of query 0's
    mem_u = _run(df, gauc_weighting="uniform").tables["auc"]
    assert mem_u.query("scorer == 'a' and label == 'rel'")["gauc"].iloc[0] == 0.875


@pytest.mark.parametrize("layout", ["boundaries", "shuffled"])
def test_queries_on_scales_2_to_the_900_give_the_in_memory_query_tables(small, layout):
    """Claim: with each query's weights scaled by its own 2^j (j in −900..900; integer weights
    times powers of two, so that every per-query sum is exact on the query's own scale), the
    out-of-core per-query AUCs, row counts and notes equal the in-memory ones exactly, and the
    gAUCs, their standard errors, intervals and paired tests to 1e-12, with the query bootstrap
    and BCa's jackknife; whether a few queries straddle partitions or the rows are in random
    order (all shuffled by query id). (The pooled statistics keep one scale for all rows.)
    Reference: the in-memory report (tests/test_diagnostics*.py check it)."""
    df = small[0].iloc[:12_000].copy()
    rng = np.random.default_rng(5)
    j = 3 * rng.integers(-300, 301, size=df["qid"].max() + 1)
    df["w"] = df["w"] * 2.0 ** j[df["qid"].to_numpy()]
    rows = df if layout == "boundaries" else df.sample(frac=1.0, random_state=0)
    data = dd.from_pandas(rows, npartitions=5, sort=False)
    gcols = ["gauc", "gauc_se", "gauc_ci_low", "gauc_ci_high"]
    for kw in ({"n_boot": 0, "gauc_weighting": "pairs"},
               {"n_boot": 60, "interval": "percentile", "gauc_weighting": "uniform"},
               {"n_boot": 60, "interval": "bca", "gauc_weighting": "impressions"}):
        mem, ooc = _run(df, **kw).tables, _run(data, **kw).tables
        pd.testing.assert_frame_equal(ooc["per_query"], mem["per_query"], check_exact=True)
        assert np.isfinite(mem["per_query"]["auc"]).sum() > 400  # the light queries kept
        for A, B in ((mem["auc"][gcols], ooc["auc"][gcols]),
                     (mem["paired"].query("metric == 'gauc'"),
                      ooc["paired"].query("metric == 'gauc'"))):
            pd.testing.assert_frame_equal(B, A, check_exact=False, rtol=RTOL, atol=0)
