"""The report's partial AUC (issue 34, item 3): ``diagnose(..., max_fpr=)`` and ``bipartite
report --max-fpr X`` add per scorer and label the McClish-standardised partial AUC to the
per-label AUC table, in every format. Checked against scikit-learn's ``roc_auc_score(max_fpr=)``
(an independent implementation) and :func:`bipartite.metrics.partial_auc` on tied, weighted data
with query ids (pooled over rows with the row weights); out of core it is refused before any
work; bad values are refused by name, by the one validator ``partial_auc`` uses."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import bipartite.cli._report as cli_report
from bipartite.cli import main
from bipartite.diagnostics import diagnose
from bipartite.metrics import partial_auc

SCORES, LABELS = ["a", "b", "c"], ["y1", "y2"]


@pytest.fixture()
def table() -> pd.DataFrame:
    """Three scorers with many ties (scores rounded), row weights, query ids."""
    rng = np.random.default_rng(34)
    n = 500
    Y = (rng.random((n, 2)) < [0.4, 0.15]).astype(int)
    return pd.DataFrame({
        "a": np.round(Y @ [1.0, 0.3] + rng.normal(size=n), 1),
        "b": np.round(Y @ [0.3, 1.0] + rng.normal(size=n), 1),
        "c": np.round(rng.normal(size=n), 0),
        "q": rng.integers(0, 40, n), "w": rng.uniform(0.2, 3.0, n),
        "y1": Y[:, 0], "y2": Y[:, 1]})


@pytest.mark.parametrize("max_fpr", [0.05, 0.2, 0.5, 1.0])
def test_report_pauc_equals_sklearn_and_partial_auc(table, max_fpr):
    d = diagnose(table, scores=SCORES, labels=LABELS, qid="q", weight="w", max_fpr=max_fpr)
    auc = d.tables["auc"].set_index(["scorer", "label"])
    assert d.meta["max_fpr"] == max_fpr
    for s in SCORES:
        for lab in LABELS:
            got = auc.loc[(s, lab), "pauc"]
            # pooled over every row (the queries are not separated), with the row weights
            ref = roc_auc_score(table[lab], table[s], max_fpr=max_fpr, sample_weight=table["w"])
            assert got == pytest.approx(ref, abs=1e-12)
            assert got == partial_auc(table[lab], table[s], max_fpr=max_fpr,
                                      sample_weight=table["w"])
            if max_fpr == 1.0:  # the whole curve: the AUC column itself
                assert got == pytest.approx(auc.loc[(s, lab), "auc"], abs=1e-12)


def test_without_max_fpr_no_column_and_meta_none(table):
    d = diagnose(table, scores="a", labels=LABELS)
    assert "pauc" not in d.tables["auc"].columns and d.meta["max_fpr"] is None
    assert "pAUC" not in d.to_markdown() and "pAUC" not in d.to_html(figures=False)


def test_every_format_shows_the_column_and_the_note(table):
    d = diagnose(table, scores=["a", "b"], labels=LABELS, weight="w", max_fpr=0.1)
    md = d.to_markdown()
    assert "| label | AUC | 95% CI | gAUC | 95% CI | pAUC (FPR ≤ 0.1) |" in md
    assert "McClish-standardised" in md
    root = ET.fromstring(d.to_html(figures=False).split("\n", 1)[1])  # XHTML, no doctype
    ns = {"h": "http://www.w3.org/1999/xhtml"}
    heads = [th.text for th in root.iterfind(".//h:th", ns)]
    assert heads.count("pAUC (FPR ≤ 0.1)") == 2  # one per scorer's per-label table
    rec = json.loads(d.to_json())
    assert rec["meta"]["max_fpr"] == 0.1
    for r in rec["auc"]:
        ref = roc_auc_score(table[r["label"]], table[r["scorer"]], max_fpr=0.1,
                            sample_weight=table["w"])
        assert r["pauc"] == pytest.approx(ref, abs=1e-12)


def test_a_single_class_label_has_no_pauc_and_says_why(table):
    d = diagnose(table.assign(y2=0), scores="a", labels=LABELS, max_fpr=0.3)
    row = json.loads(d.to_json())["auc"][1]
    assert row["label"] == "y2" and row["pauc"] is None and "single class" in row["note"]


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, math.nan, math.inf, True, "0.1"])
def test_bad_max_fpr_is_refused_by_name(table, bad):
    msg = r"The 'max_fpr' parameter must be a number in \(0, 1\], got"
    with pytest.raises(ValueError, match=msg):
        diagnose(table, scores="a", labels=LABELS, max_fpr=bad)
    with pytest.raises(ValueError, match=msg):  # the same validator as the metric's
        partial_auc(table["y1"], table["a"], max_fpr=bad)


def _cli(capsys, path, *extra):
    code = main(["report", str(path), *[x for s in SCORES for x in ("--score", s)],
                 "--label", "y1", "--label", "y2", "--no-progress", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_cli_max_fpr_end_to_end(capsys, table, tmp_path):
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    code, out, _ = _cli(capsys, path, "--qid", "q", "--weight", "w", "--max-fpr", "0.25",
                        "--format", "json", "--out", str(tmp_path / "r"))
    assert code == 0
    rec = json.loads(out)
    assert rec["meta"]["max_fpr"] == 0.25
    assert json.loads((tmp_path / "r" / "report.json").read_text())["auc"] == rec["auc"]
    for r in rec["auc"]:
        ref = roc_auc_score(table[r["label"]], table[r["scorer"]], max_fpr=0.25,
                            sample_weight=table["w"])
        assert r["pauc"] == pytest.approx(ref, abs=1e-12)
    page = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert page.count("<th>pAUC (FPR ≤ 0.25)</th>") == len(SCORES)
    assert "pAUC (FPR ≤ 0.25)" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("value", ["0", "2", "nan"])
def test_cli_bad_max_fpr_exit_2_naming_it(capsys, table, tmp_path, value):
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    code, out, err = _cli(capsys, path, "--max-fpr", value)
    assert code == 2 and out == ""
    assert f"error: The 'max_fpr' parameter must be a number in (0, 1], got {float(value)}" in err


def _no_cluster(*a, **k):
    raise AssertionError("the refusal must come before a cluster is started")


def test_out_of_core_refuses_max_fpr_before_any_work(capsys, table, tmp_path, monkeypatch):
    folder = tmp_path / "parts"
    folder.mkdir()
    table.iloc[:250].to_parquet(folder / "0.parquet")
    table.iloc[250:].to_parquet(folder / "1.parquet")
    monkeypatch.setattr(cli_report, "_report_cluster", _no_cluster)
    for where, extra in ((folder, ()), (tmp_path / "t.csv", ("--scheduler", "tcp://nowhere:1"))):
        table.to_csv(tmp_path / "t.csv", index=False)
        code, out, err = _cli(capsys, where, "--qid", "q", "--max-fpr", "0.1", *extra)
        lines = [ln for ln in err.splitlines() if "error" in ln]
        assert code == 2 and out == "" and len(lines) == 1
        assert "--max-fpr" in lines[0] and "in-memory only" in lines[0]
    # the Python API: refused in diagnose's dispatch, before dask reads or connects
    with pytest.raises(ValueError, match=r"'max_fpr' parameter \(--max-fpr\) is in-memory only"):
        diagnose(folder, scores="a", labels=LABELS, qid="q", max_fpr=0.1)
    with pytest.raises(ValueError, match="in-memory only"):
        diagnose(table, scores="a", labels=LABELS, qid="q", max_fpr=0.1,
                 scheduler="tcp://nowhere:1")
