"""The report says what it means and takes what users have (issue 26, item 4): the gAUC
definition in use, two-valued labels (``positive_label``), rows with missing values
(``dropna``), standard input, any number of scorers with Holm-adjusted paired tests, polars and
pyarrow tables, the notebook display, the dictatorship section (theory beside the scorer's own
win rates) and a pair table that stays readable at many labels."""

from __future__ import annotations

import io
import itertools
import json
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from bipartite.cli import main
from bipartite.diagnostics import diagnose
from bipartite.diagnostics._inference import holm


@pytest.fixture()
def table():
    rng = np.random.default_rng(3)
    n = 240
    Y = (rng.random((n, 3)) < [0.5, 0.3, 0.15]).astype(int)
    return pd.DataFrame({
        "m1": Y @ [1.0, 0.6, 0.3] + rng.normal(size=n), "m2": Y[:, 0] + rng.normal(size=n),
        "m3": rng.normal(size=n), "q": rng.integers(0, 12, n),
        "rel": Y[:, 0], "click": Y[:, 1], "buy": Y[:, 2]})


LABELS = ["rel", "click", "buy"]


def test_the_gauc_definition_is_stated_and_uniform_is_the_query_average(table):
    d = diagnose(table, scores="m1", labels=LABELS, qid="q", n_boot=0)
    assert "pair-weighted" in d.to_markdown() and "pair-weighted" in d.meta["gauc_definition"]
    u = diagnose(table, scores="m1", labels=LABELS, qid="q", n_boot=0, gauc_weighting="uniform")
    assert "query-averaged" in u.to_markdown()
    # query-averaged gAUC: the plain mean of sklearn's per-query AUCs (queries with both classes)
    for k, lab in enumerate(LABELS):
        per_q = [roc_auc_score(g[lab], g["m1"]) for _, g in table.groupby("q")
                 if g[lab].nunique() == 2]
        assert u.tables["auc"].gauc[k] == pytest.approx(np.mean(per_q), rel=1e-12)
    assert "gAUC =" not in diagnose(table, scores="m1", labels=LABELS, n_boot=0).to_markdown()


def test_two_valued_labels_with_positive_label(table):
    ref = diagnose(table, scores=["m1", "m2"], labels=LABELS, n_boot=0)
    yn = table.assign(rel=np.where(table.rel == 1, "yes", "no"),
                      click=np.where(table.click == 1, "yes", "no"),
                      buy=table.buy.astype(bool))
    # a boolean (0/1) column beside yes/no ones is read as it is
    mixed = diagnose(yn, scores=["m1", "m2"], labels=LABELS, n_boot=0, positive_label="yes")
    pd.testing.assert_frame_equal(mixed.tables["auc"], ref.tables["auc"])
    with pytest.raises(ValueError, match=r"label column 'buy'.*no value 'yes'.*\['b', 'a'\]"):
        diagnose(yn.assign(buy=np.where(table.buy == 1, "a", "b")), scores="m1", labels=LABELS,
                 positive_label="yes")
    d2 = diagnose(yn.assign(buy=np.where(table.buy == 1, " yes", "no")), scores=["m1", "m2"],
                  labels=LABELS, n_boot=0, positive_label="yes")  # surrounding blanks ignored
    pd.testing.assert_frame_equal(d2.tables["auc"], ref.tables["auc"])
    pd.testing.assert_frame_equal(d2.tables["win_rates"], ref.tables["win_rates"])
    b = diagnose(table.assign(rel=table.rel.astype(bool)), scores="m1", labels="rel",
                 n_boot=0, positive_label="true")
    assert b.tables["auc"].auc[0] == ref.tables["auc"].auc[0]
    with pytest.raises(ValueError, match=r"label column 'rel'.*two values.*3: 'a', 'b', 'c'"):
        diagnose(table.assign(rel=np.resize(["a", "b", "c"], len(table))), scores="m1",
                 labels="rel", positive_label="a")
    with pytest.raises(ValueError, match=r"has no value 'Yes'.*\['no', 'yes'\]|'yes', 'no'"):
        diagnose(yn, scores="m1", labels="rel", positive_label="Yes")
    with pytest.raises(ValueError, match=r"positive_label='yes' \(--positive-label yes\)"):
        diagnose(yn, scores="m1", labels="rel")


def test_a_one_valued_label_that_is_not_the_positive_label_warns(table):
    """Claim: a text label column with a single value that is not ``positive_label`` (often a
    misspelt positive label) is read as all-negative with a UserWarning naming the column, the
    value and the positive label; a single value that is the positive label does not warn."""
    one = table.assign(rel="no")
    with pytest.warns(UserWarning, match=r"label column 'rel'.*one value, 'no'.*not "
                                         r"positive_label 'yes'"):
        d = diagnose(one, scores="m1", labels=["rel", "click"], n_boot=0, positive_label="yes")
    assert np.isnan(d.tables["auc"].auc[0])
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*one value.*")
        d = diagnose(table.assign(rel="yes"), scores="m1", labels=["rel", "click"], n_boot=0,
                     positive_label="yes")
    assert np.isnan(d.tables["auc"].auc[0])  # no negative: undefined

def test_dropna_drops_and_counts_rows(table):
    gaps = table.astype({"m1": float, "rel": float}).copy()
    gaps.loc[[5, 17], "m1"] = np.nan
    gaps.loc[40, "rel"] = np.nan
    with pytest.raises(ValueError, match=r"score column 'm1'.*row 5 .*dropna=True"):
        diagnose(gaps, scores="m1", labels=LABELS)
    d = diagnose(gaps, scores="m1", labels=LABELS, n_boot=0, dropna=True)
    ref = diagnose(gaps.drop(index=[5, 17, 40]), scores="m1", labels=LABELS, n_boot=0)
    assert d.meta["n_dropped"] == 3 and d.meta["n_rows"] == len(table) - 3
    pd.testing.assert_frame_equal(d.tables["auc"], ref.tables["auc"])
    assert "3 with a missing value dropped" in d.to_markdown()
    with pytest.raises(ValueError, match="'dropna' parameter"):
        diagnose(gaps, scores="m1", labels=LABELS, dropna="yes")


def test_any_number_of_scorers_with_holm(table):
    d = diagnose(table, scores=["m1", "m2", "m3"], labels=LABELS, qid="q", n_boot=200)
    paired = d.tables["paired"]
    assert len(paired) == 3 * 3 * 2  # scorer pairs × labels × (auc, gauc)
    assert set(zip(paired.scorer_a, paired.scorer_b, strict=True)) == {("m1", "m2"), ("m1", "m3"),
                                                          ("m2", "m3")}
    for _, grp in paired.groupby("metric"):
        p = grp.p_value.to_numpy()
        m = np.isfinite(p).sum()
        order = np.argsort(p)
        ref = np.empty(len(p))
        running = 0.0
        for rank, i in enumerate(order):  # textbook Holm: step down, monotone, capped at 1
            running = max(running, min(1.0, (m - rank) * p[i]))
            ref[i] = running
        np.testing.assert_allclose(grp.p_holm.to_numpy(), ref, rtol=1e-12)
    assert "Holm" in d.to_markdown() and "Holm" in d.meta["multiple_testing"]


def test_holm_known_values():
    # m = 4: 0.005·4, 0.01·3, max(0.03·2, ·), max(0.04·1, 0.06)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = holm([np.nan, 0.2, 0.9])
    assert np.isnan(out[0]) and out[1:] == pytest.approx([0.4, 0.9])
    assert holm([]) == []


def test_pyarrow_and_polars_tables(table):
    import pyarrow as pa

    ref = diagnose(table, scores="m1", labels=LABELS, qid="q", n_boot=50)
    d = diagnose(pa.Table.from_pandas(table), scores="m1", labels=LABELS, qid="q", n_boot=50)
    pd.testing.assert_frame_equal(d.tables["auc"], ref.tables["auc"])
    with pytest.raises(TypeError, match=r"pandas, polars or pyarrow table.*got builtins\.list"):
        diagnose([1, 2], scores="m1", labels="rel")
    pl = pytest.importorskip("polars")
    d = diagnose(pl.from_pandas(table), scores="m1", labels=LABELS, qid="q", n_boot=50)
    pd.testing.assert_frame_equal(d.tables["auc"], ref.tables["auc"])
    with pytest.raises(TypeError, match="LazyFrame: collect"):
        diagnose(pl.from_pandas(table).lazy(), scores="m1", labels=LABELS)


def test_notebook_display(table):
    d = diagnose(table, scores=["m1", "m2"], labels=LABELS, qid="q", n_boot=30)
    assert d._repr_markdown_() == d.to_markdown()
    root = ET.fromstring(d._repr_html_())  # well-formed
    assert root.get("class") == "bipartite-diagnostics"
    tables = root.findall(".//table")
    assert len(tables) >= 6
    heads = [["".join(th.itertext()) for th in t.iter("th")] for t in tables]
    assert heads[0][:2] == ["scorer", "Min AUC"]  # choosing a scorer comes first
    assert any(h[0] == "label" and "would dictate (theory)" in h for h in heads)


def test_dictatorship_theory_beside_the_scorer(table):
    """`loan` is rare (theory: loss aggregation with a = 1 would make it the dictator) but the
    scorer puts the `housing`-only rows first: the report must say both, under names that tell
    theory from observation; W is checked against a double loop."""
    rng = np.random.default_rng(5)
    n = 400
    loan = (rng.random(n) < 0.06).astype(int)
    housing = (rng.random(n) < 0.5).astype(int)
    s = 2.0 * housing + loan + rng.normal(scale=0.5, size=n)
    d = diagnose({"s": s, "loan": loan, "housing": housing}, scores="s",
                 labels=["loan", "housing"], n_boot=0)
    dic = d.tables["dictatorship"].set_index("label")
    assert dic.loc["loan", "theory_dictator"] and not dic.loc["housing", "theory_dictator"]
    assert dic.loc["housing", "observed_favoured"] and not dic.loc["loan", "observed_favoured"]
    a = s[(housing == 1) & (loan == 0)]
    b = s[(loan == 1) & (housing == 0)]
    W = np.mean([(x > y) + 0.5 * (x == y) for x, y in itertools.product(a, b)])
    assert dic.loc["housing", "observed_mean_win_rate"] == pytest.approx(W, rel=1e-12)
    assert dic.loc["loan", "observed_mean_win_rate"] == pytest.approx(1 - W, rel=1e-12)
    md = d.to_markdown()
    assert "would make `loan` the dictator" in md and "not yours" in md
    assert "mean W(k > ·) (observed)" in md and "would dictate (theory)" in md


def test_one_defined_label_does_not_contradict_its_share():
    rng = np.random.default_rng(0)
    d = diagnose({"s": rng.normal(size=50), "a": rng.integers(0, 2, 50), "b": np.zeros(50)},
                 scores="s", labels=["a", "b"], n_boot=0)
    assert d.tables["labels"].alpha_share[0] == 1.0
    md = d.to_markdown()
    assert "no α share > ½" not in md and "Fewer than two labels have both classes" in md


def test_many_labels_the_pair_table_is_cut_by_its_rule():
    rng = np.random.default_rng(2)
    n, K = 300, 12
    priors = np.linspace(0.03, 0.5, K)
    Y = (rng.random((n, K)) < priors).astype(int)
    data = {f"y{k}": Y[:, k] for k in range(K)} | {"s": Y.sum(1) + rng.normal(size=n)}
    d = diagnose(data, scores="s", labels=[f"y{k}" for k in range(K)], n_boot=0)
    md = d.to_markdown(max_pairs=30)
    assert "Showing 30 of 66 label pairs" in md and "36 pairs left out" in md
    section = md.split("### Cross-pair win rates (observed)")[1].split("###")[0]
    shown = [line for line in section.splitlines() if line.startswith("| W(")]
    assert len(shown) == 30
    alpha = d.tables["labels"].set_index("label").alpha
    ends = set(alpha.nsmallest(3).index) | set(alpha.nlargest(3).index)
    for k, j in itertools.combinations(sorted(ends, key=lambda x: int(x[1:])), 2):
        assert f"| W({k} > {j}) |" in section
    wr = d.tables["win_rates"]
    most = wr.iloc[int(np.nanargmax(np.abs(2 * wr.win_rate - 1)))]
    assert f"| W({most.label_k} > {most.label_j}) |" in section
    assert "Showing" not in d.to_markdown(max_pairs=100)
    fig = d.figure()  # the win-rate matrix, not 66 error bars
    assert any(ax.images for ax in fig.axes)


def _stdin(monkeypatch, raw: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))


def test_cli_reads_stdin_and_takes_the_new_options(table, tmp_path, monkeypatch, capsys):
    yn = table.assign(rel=np.where(table.rel == 1, "yes", "no"))
    yn.loc[3, "m2"] = np.nan
    args = ["--score", "m1", "--score", "m2", "--score", "m3", *sum([["--label", c] for c in
                                                                     LABELS], []),
            "--qid", "q", "--positive-label", "yes", "--dropna", "--gauc-weighting", "uniform",
            "--level", "0.9", "--n-boot", "40", "--format", "json", "--no-progress"]
    path = tmp_path / "s.csv"
    yn.to_csv(path, index=False)
    assert main(["report", str(path), *args]) == 0
    from_file = json.loads(capsys.readouterr().out)
    _stdin(monkeypatch, yn.to_csv(index=False).encode())
    assert main(["report", "-", *args]) == 0
    from_stdin = json.loads(capsys.readouterr().out)
    assert from_stdin["auc"] == from_file["auc"] and from_stdin["paired"] == from_file["paired"]
    meta = from_stdin["meta"]
    assert meta["source"] == "standard input" and meta["n_dropped"] == 1
    assert meta["level"] == 0.9 and "query-averaged" in meta["gauc_definition"]
    assert len({(r["scorer_a"], r["scorer_b"]) for r in from_stdin["paired"]}) == 3
    buf = io.BytesIO()
    yn.to_parquet(buf)
    _stdin(monkeypatch, buf.getvalue())
    assert main(["report", "-", *args]) == 0
    assert json.loads(capsys.readouterr().out)["auc"] == from_file["auc"]
    assert main(["report", str(path), *args[:-5], "--level", "1.5"]) == 2
    assert "'level' parameter must be a number in (0, 1)" in capsys.readouterr().err
