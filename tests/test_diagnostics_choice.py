"""The report helps choose a scorer (issue 34, items 1, 2 and 5): the ``scorers`` table agrees
with the per-label table, the paired Min AUC differences agree with an independent DeLong paired
test where both minima sit on one label, the recommendation says when the evidence is within
noise, a degenerate interval carries a note in every format, the HTML page shows no literal
Markdown, and a name holding ``|`` leaves every Markdown table intact (issue 36)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from bipartite.cli import main
from bipartite.diagnostics import delong_paired_test, diagnose
from bipartite.studies.report import markdown_table

LABELS = ["rel", "click"]


def _table(seed=0, n=800, G=60):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 2)) < [0.4, 0.25]).astype(int)
    return pd.DataFrame({
        "good": Y @ [1.5, 1.5] + rng.normal(size=n), "twin": Y @ [1.5, 1.4] + rng.normal(size=n),
        "weak": Y @ [0.2, 0.6] + rng.normal(size=n), "q": rng.integers(0, G, n),
        "rel": Y[:, 0], "click": Y[:, 1]})


@pytest.mark.parametrize("kw", [{}, {"qid": "q"}, {"qid": "q", "n_boot": 200},
                                {"n_boot": 200, "interval": "percentile"}])
def test_the_scorers_table_agrees_with_the_per_label_table(kw):
    """Claim: in the JSON, each scorer's min_auc, diff_auc and macro_auc are the min, max − min
    and mean of its rows in the per-label table, min_auc_label names the minimum's label, the
    Min/Diff intervals are the summary table's, and each paired_min difference is the two
    scorers' min_auc difference, its interval around it."""
    d = diagnose(_table(), scores=["good", "twin", "weak"], labels=LABELS, **kw)
    doc = json.loads(d.to_json())
    for r in doc["scorers"]:
        a = {x["label"]: x["auc"] for x in doc["auc"] if x["scorer"] == r["scorer"]}
        assert r["min_auc"] == min(a.values()) and a[r["min_auc_label"]] == r["min_auc"]
        assert r["diff_auc"] == pytest.approx(max(a.values()) - min(a.values()), abs=1e-15)
        assert r["macro_auc"] == pytest.approx(np.mean(list(a.values())), abs=1e-15)
        s = [x for x in doc["summary"] if x["scorer"] == r["scorer"]][0]
        assert (r["min_auc_ci_low"], r["min_auc_ci_high"]) == (s["min_ci_low"], s["min_ci_high"])
        assert r["min_auc_ci_low"] <= r["min_auc"] <= r["min_auc_ci_high"]
    mins = {r["scorer"]: r["min_auc"] for r in doc["scorers"]}
    assert [(p["scorer_a"], p["scorer_b"]) for p in doc["paired_min"]] == [
        ("good", "twin"), ("good", "weak"), ("twin", "weak")]
    for p in doc["paired_min"]:
        assert p["difference"] == pytest.approx(mins[p["scorer_a"]] - mins[p["scorer_b"]],
                                                abs=1e-15)
        assert p["ci_low"] < p["difference"] < p["ci_high"] and p["method"]
    assert doc["recommendation"]["scorer"] == max(mins, key=mins.get)


def test_paired_min_equals_delong_paired_test_when_both_minima_share_a_label():
    """Claim: without query ids, where both scorers' minimum is the same label k, the analytic
    paired Min AUC difference is DeLong's paired AUC difference on label k
    (:func:`delong_paired_test`, checked against brute force elsewhere): same difference, same
    standard error; with interval='wald' the same interval."""
    rng = np.random.default_rng(1)
    n = 700
    Y = (rng.random((n, 2)) < [0.4, 0.25]).astype(int)
    t = pd.DataFrame({"good": Y @ [1.0, 2.0] + rng.normal(size=n),
                      "weak": Y @ [0.3, 1.0] + rng.normal(size=n), "rel": Y[:, 0],
                      "click": Y[:, 1]})
    d = diagnose(t, scores=["good", "weak"], labels=LABELS, interval="wald")
    sc = d.tables["scorers"].set_index("scorer")
    k = sc.min_auc_label["good"]
    assert sc.min_auc_label["weak"] == k  # the setting of the claim
    ref = delong_paired_test(t[k], t["good"], t["weak"])
    p = d.tables["paired_min"].iloc[0]
    assert p.difference == pytest.approx(ref["diff"], abs=1e-12)
    assert p.se == pytest.approx(ref["se"], rel=1e-9)
    assert (p.ci_low, p.ci_high) == pytest.approx((ref["ci_low"], ref["ci_high"]), rel=1e-9)


def test_paired_min_uses_each_scorers_own_minimum():
    """Claim: when the two minima sit on different labels (far apart, so each replicate's
    minimum is on the same label) the analytic standard error of θ_a,k − θ_b,j matches the
    paired bootstrap over rows, which recomputes each scorer's minimum in every replicate and
    takes the replicates' spread (4000 replicates: the se of an se is about 1.1%)."""
    rng = np.random.default_rng(4)
    n = 800
    Y = (rng.random((n, 2)) < [0.4, 0.3]).astype(int)
    t = {"a": Y @ [2.0, 0.5] + rng.normal(size=n), "b": Y @ [0.5, 2.0] + rng.normal(size=n),
         "rel": Y[:, 0], "click": Y[:, 1]}
    d = diagnose(t, scores=["a", "b"], labels=LABELS, interval="wald")
    sc = d.tables["scorers"].set_index("scorer")
    assert (sc.min_auc_label["a"], sc.min_auc_label["b"]) == ("click", "rel")
    boot = diagnose(t, scores=["a", "b"], labels=LABELS, n_boot=4000, seed=3, interval="wald")
    p, pb = d.tables["paired_min"].iloc[0], boot.tables["paired_min"].iloc[0]
    assert p.difference == pb.difference
    assert p.se == pytest.approx(pb.se, rel=0.05)


def test_the_recommendation_says_when_the_lead_is_within_noise():
    d = diagnose(_table(), scores=["good", "twin", "weak"], labels=LABELS, qid="q")
    rec = d.recommendation
    assert rec["scorer"] == "good"
    pm = d.tables["paired_min"].set_index(["scorer_a", "scorer_b"])
    assert pm.ci_low["good", "twin"] < 0 < pm.ci_high["good", "twin"]  # the claim's setting
    assert pm.ci_low["good", "weak"] > 0
    assert "beats `weak`" in rec["reason"] and "beyond noise" in rec["reason"]
    assert "over `twin`" in rec["reason"] and "within noise" in rec["reason"]
    md = d.to_markdown()
    assert "## Choosing a scorer" in md and f"**Recommendation:** {rec['reason']}" in md
    assert json.loads(d.to_json())["recommendation"] == rec
    one = diagnose(_table(), scores="good", labels=LABELS)
    assert one.recommendation["scorer"] == "good" and "only scorer" in one.recommendation["reason"]
    assert len(one.tables["paired_min"]) == 0


def _visible_text(page: str) -> str:
    root = ET.fromstring(page)  # well-formed XHTML
    body = root.find("{http://www.w3.org/1999/xhtml}body")
    return "".join(body.itertext())


def assert_no_literal_markdown(text: str) -> None:
    """No Markdown mark survives in rendered text: bold, emphasis, code spans, table rules."""
    assert "**" not in text and "`" not in text and "|---|" not in text
    assert not re.search(r"(?<![\w*])\*[^\s*][^*\n]*\*(?![\w*])", text), \
        re.search(r"(?<![\w*])\*[^\s*][^*\n]*\*(?![\w*])", text)


def test_html_page_is_self_contained_and_shows_no_markdown():
    d = diagnose(_table(), scores=["good", "twin"], labels=LABELS, qid="q")
    page = d.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<link" not in page
    assert not re.search(r"""(src|href)=["'](?!data:)""", page)  # nothing fetched
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert len(srcs) == 5 and all(s.startswith("data:image/png;base64,") for s in srcs)
    text = _visible_text(page)
    assert_no_literal_markdown(text)
    assert "favoured marks the label" in text  # the emphasis is rendered, not dropped
    assert "<em>favoured</em>" in page and "<strong>Recommendation:</strong>" in page
    assert "Choosing a scorer" in text and "Recommendation:" in text


def test_a_degenerate_interval_carries_a_note_in_every_format(tmp_path):
    """Claim: an AUC of exactly 1 or 0 (a point interval) and a label with a single positive
    row each get a note, in the table, the JSON, the Markdown, the HTML and the CLI's text."""
    rng = np.random.default_rng(2)
    n = 200
    rel = rng.integers(0, 2, n)
    one = np.zeros(n, dtype=int)
    one[7] = 1
    t = pd.DataFrame({"perfect": rel + rng.random(n) * 0.5, "rev": -rel - rng.random(n) * 0.5,
                      "rel": rel, "rare": one})
    d = diagnose(t, scores=["perfect", "rev"], labels=["rel", "rare"])
    a = d.tables["auc"].set_index(["scorer", "label"])
    assert a.auc["perfect", "rel"] == 1.0 and a.auc["rev", "rel"] == 0.0
    assert a.auc_ci_low["perfect", "rel"] == a.auc_ci_high["perfect", "rel"] == 1.0
    assert "AUC of 'rel' is 1" in a.note["perfect", "rel"] and "degenerate" in a.note[
        "perfect", "rel"]
    assert "AUC of 'rel' is 0" in a.note["rev", "rel"]
    assert "single positive row" in a.note["perfect", "rare"]
    doc = json.loads(d.to_json())
    assert any("is 1 (every positive ranked above" in (r["note"] or "") for r in doc["auc"])
    for text in (d.to_markdown(), _visible_text(d.to_html(figures=False))):
        assert "AUC of 'rel' is 1" in text and "single positive row" in text
    t.to_csv(tmp_path / "t.csv", index=False)
    assert main(["report", str(tmp_path / "t.csv"), "--score", "perfect", "--label", "rel",
                 "--no-progress", "--format", "html"]) == 0


def test_a_bar_in_a_name_leaves_every_markdown_table_intact():
    """Claim: a label and a scorer named with ``|`` are escaped in every Markdown table of the
    report (and of the studies' writer), so each table line has as many cells as its header."""
    t = _table().rename(columns={"rel": "y|a", "good": "s|1"})
    d = diagnose(t, scores=["s|1", "twin"], labels=["y|a", "click"], qid="q")
    md = d.to_markdown()
    split = re.compile(r"(?<!\\)\|")
    blocks = re.findall(r"((?:^\|.*\|$\n?)+)", md, flags=re.M)
    assert len(blocks) >= 8
    for block in blocks:
        widths = {len(split.split(line)) for line in block.strip().splitlines()}
        assert len(widths) == 1, block
    assert "y\\|a" in md and "s\\|1" in md
    assert "y|a" in _visible_text(d.to_html(figures=False))  # HTML shows the name as it is
    st = markdown_table(pd.DataFrame({"y|a": ["p|q"], "b": [1.0]}))
    assert [len(split.split(x)) for x in st.splitlines()] == [4, 4, 4]
