"""The README's Python examples run as written (they are documentation users copy), and its LA25
§7 tables equal what the saved results give (``analysis/readme_tables.py``), cell by cell against
a plain recomputation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_example_runs(i, capsys):
    exec(compile(BLOCKS[i], f"README.md[python block {i}]", "exec"), {"__name__": "readme"})


@pytest.fixture(scope="module")
def readme_tables():
    return load_script("analysis/readme_tables.py")


@pytest.mark.parametrize("doc", ["README.md", "papers/la25/README.md", "docs/theory.md"])
def test_generated_tables_equal_the_committed_results(readme_tables, doc):
    """``python analysis/readme_tables.py --check``: each table block of README.md, of
    papers/la25/README.md and of docs/theory.md §12.10 is what the committed results
    (papers/la25/results/) give."""
    path = ROOT / doc
    blocks = readme_tables.readme_blocks(path.read_text(encoding="utf-8"), path)
    assert blocks
    assert blocks == readme_tables.tables(readme_tables.load_results(), path)


def _rows(block: str) -> list[list[str]]:
    lines = [ln for ln in block.strip().splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]


def _number(text: str) -> float:
    return float(text.replace("−", "-").replace("**", ""))


_OBJECTIVE = {"sum (LA25's label aggregation)": "label_aggregation", "AND (product)": "label_and",
              "weighted sum, w₂/w₁ = 2": "label_sum_2", "weighted sum, w₂/w₁ = 4": "label_sum_4",
              "weighted sum, w₂/w₁ = 1/2": "label_sum_0.5",
              "weighted sum, w₂/w₁ = 1/4": "label_sum_0.25", "OR": "label_or",
              "lexicographic, label 1 first": "label_lex_12",
              "lexicographic, label 2 first": "label_lex_21",
              "loss aggregation, a₂/a₁ = 1/2": "loss_a_0.5", "loss aggregation, a₂/a₁ = 2": "loss_a_2",
              "loss aggregation, a₂/a₁ = 4": "loss_a_4", "max-min (pairwise)": "max_min",
              "max-min (plug-in)": "max_min_plugin"}
_COLUMNS = [(d, lr) for d in ("bank_marketing", "letor") for lr in ("linear", "mlp", "xgb")]


def test_readme_section7_family_cells_by_a_plain_recomputation():
    """Every cell of the README's family table, recomputed from the committed CSV with plain
    NumPy: per split, the row's Min AUC minus loss aggregation's (a = 1); mean, sample s.d. / √n,
    splits ahead; bold exactly where all splits lie on one side beyond 2 s.e. (the issue's
    Bank Marketing and MQ2008 numbers for the sum are rows of this table)."""
    block = re.search(r"<!-- table:section7_family:start -->\n(.*?)<!-- table:section7_family",
                      TEXT, flags=re.S).group(1)
    rows = _rows(block)
    assert [r[0] for r in rows[1:]] == list(_OBJECTIVE)
    frames = {d: pd.read_csv(ROOT / "papers" / "la25" / "results" / f"section7_{d}.csv")
              for d in ("bank_marketing", "letor")}
    for row in rows[1:]:
        objective = _OBJECTIVE[row[0]]
        for cell, (dataset, learner) in zip(row[1:], _COLUMNS, strict=True):
            df = frames[dataset]
            df = df[df["learner"] == learner]
            ref = df[df["objective"] == "loss_aggregation"].set_index("split")["min"]
            mine = df[df["objective"] == objective].set_index("split")["min"]
            d = (mine - ref).dropna().to_numpy()
            mean, se = d.mean(), d.std(ddof=1) / np.sqrt(len(d))
            m = re.fullmatch(r"(\**)([−+]\d\.\d{3}) ± (\d\.\d{3})\**\s\((\d)/(\d)\)", cell)
            assert m, cell
            assert _number(m.group(2)) == pytest.approx(mean, abs=5e-4 + 1e-9), (row[0], cell)
            assert float(m.group(3)) == pytest.approx(se, abs=5e-4 + 1e-9), (row[0], cell)
            assert (int(m.group(4)), int(m.group(5))) == ((d > 0).sum(), len(d)), (row[0], cell)
            one_side = (d > 0).all() or (d < 0).all()
            assert bool(m.group(1)) == bool(one_side and abs(mean) > 2 * se), (row[0], cell)
    first = rows[0]
    for cell, (dataset, learner) in zip(first[1:], _COLUMNS, strict=True):
        df = frames[dataset]
        ref = df[(df["learner"] == learner) & (df["objective"] == "loss_aggregation")]["min"]
        assert _number(cell) == pytest.approx(ref.mean(), abs=5e-4 + 1e-9)


def _plain_rule(d: np.ndarray, setting: str, higher: bool = True) -> str:
    """The rules of papers/README.md, from the text (a zero difference counts as against)."""
    mean, se = d.mean(), d.std(ddof=1) / np.sqrt(len(d))
    agree = int((d > 0).sum() if higher else (d < 0).sum())
    if setting == "stand-in":
        return "not-reproduced"
    if len(d) < 2 or abs(mean) <= 2 * se or 0 < agree < len(d):
        return "inconclusive"
    return "holds" if (mean > 0) == higher else "refuted"


_RESULTS = ROOT / "papers" / "la25" / "results"
_SETS = {"Bank Marketing": "bank_marketing", "MQ2008 (stand-in for MSLR-WEB30K)": "letor",
         "emotions": "emotions", "scene": "scene", "yeast": "yeast", "birds": "birds",
         "medical": "medical", "enron": "enron", "CAL500": "cal500"}
_LEARNER = {"linear": "linear", "MLP": "mlp", "XGBoost": "xgb"}
_CELL = re.compile(r"(\w+): ([−+]\d\.\d{3}) ± (\d\.\d{3}) \((\d+)/(\d+)\) \*([a-z-]+)\*")
_PRED = re.compile(r"plug-in: ahead on (\d+)/(\d+), ΔMin ([−+]\d\.\d{3})"
                   r"(?:; same sign as the learner on (\d+) · (\d+) · (\d+) of (\d+))?")


def test_when_label_aggregation_cells_by_a_plain_recomputation():
    """Every cell of the README's answer table (issue 33), recomputed from the committed CSVs
    with plain NumPy: per learner, label minus loss aggregation's Min AUC per split (mean, s.e.,
    splits ahead) and the verdict by the rules; the plug-in prediction's splits ahead and mean
    ΔMin; on the Mulan sets, the splits where the plug-in ΔMin and the learner's have one sign.
    Rows: Bank Marketing, the MQ2008 stand-in (graded not-reproduced) and the seven Mulan sets."""
    block = re.search(r"<!-- table:when_label_aggregation:start -->\n(.*?)<!-- table:when",
                      TEXT, flags=re.S).group(1)
    rows = _rows(block)
    assert [r[0] for r in rows] == list(_SETS)
    ml = pd.read_csv(_RESULTS / "multilabel.csv")
    pm = pd.read_csv(_RESULTS / "multilabel_predictions.csv")
    p7 = pd.read_csv(_RESULTS / "section7_predictions.csv")
    p7 = p7[p7["model"] == "logistic"]
    objective7 = {"sum": "label_aggregation", "or": "label_or", "and": "label_and"}
    checked = 0
    for row in rows:
        dataset = _SETS[row[0]]
        for psi, cell in zip(("sum", "or", "and"), row[2:], strict=True):
            if dataset in ("bank_marketing", "letor"):
                df = pd.read_csv(_RESULTS / f"section7_{dataset}.csv")
                arm, base, metric, col = objective7[psi], "loss_aggregation", "min", "learner"
                pred = p7[(p7["dataset"] == dataset) & (p7["aggregation"] == psi)]
                pred_d = (pred["min_label"] - pred["min_loss"]).to_numpy()
            else:
                df = ml[ml["dataset"] == dataset]
                arm, base, metric, col = psi, "macro", "min_auc", "learner"
                if df[(df["objective"] == psi)]["skipped"].notna().all():
                    assert cell == "constant (not run)", (dataset, psi)
                    continue
                pred = pm[(pm["dataset"] == dataset) & (pm["aggregation"] == psi)]
                pred_d = pred["dmin"].to_numpy()
            lines = cell.split("<br>")
            diffs = {}
            for line in lines[:-1]:
                m = _CELL.fullmatch(line)
                assert m, line
                sub = df[df[col] == _LEARNER[m.group(1)]]
                mine = sub[sub["objective"] == arm].set_index("split")[metric]
                ref = sub[sub["objective"] == base].set_index("split")[metric]
                diff = (mine - ref).dropna()
                d = diff.to_numpy()
                diffs[m.group(1)] = diff
                assert _number(m.group(2)) == pytest.approx(d.mean(), abs=5e-4 + 1e-9), line
                se = d.std(ddof=1) / np.sqrt(len(d))
                assert float(m.group(3)) == pytest.approx(se, abs=5e-4 + 1e-9), line
                assert (int(m.group(4)), int(m.group(5))) == ((d > 0).sum(), len(d)), line
                setting = "stand-in" if dataset == "letor" else "own"
                assert m.group(6) == _plain_rule(d, setting), line
                checked += 1
            p = _PRED.fullmatch(lines[-1])
            assert p, lines[-1]
            assert (int(p.group(1)), int(p.group(2))) == (
                int((pred["min_winner"] == "label").sum()), len(pred))
            assert _number(p.group(3)) == pytest.approx(pred_d.mean(), abs=5e-4 + 1e-9)
            if dataset not in ("bank_marketing", "letor"):
                by_split = pred.set_index("split")["dmin"]
                for n, learner in zip(p.group(4, 5, 6), ("linear", "MLP", "XGBoost"),
                                      strict=True):
                    diff = diffs[learner]
                    same = np.sign(diff.to_numpy()) == np.sign(by_split.loc[diff.index].to_numpy())
                    assert int(n) == int(same.sum()), (dataset, psi, learner)
    assert checked >= 3 * (2 * 3 + 7 + 2)  # K = 2: three ψ; Mulan: sum everywhere, OR on two


def _report_rows() -> dict[str, list[str]]:
    block = TEXT[TEXT.index("| scorer | AUC relevant [95% CI]"):]
    block = block[:block.index("\n\n")]
    return {r[0].strip("`"): r[1:] for r in _rows(block)}


@pytest.mark.slow  # trains two XGBoost rankers on MQ2008 S1-S4 (about a minute of CPU)
def test_readme_mq2008_report_example(shared_data, tmp_path):
    """The README's MQ2008 report example, rerun as a newcomer would: the analysis script writes
    the S5 scores, and the report's numbers are the README's, to the digits shown."""
    import subprocess
    import sys

    from bipartite.diagnostics import diagnose

    if not (shared_data / "letor" / "mq2008_S5.txt").exists():
        pytest.skip(f"{shared_data / 'letor'} has no MQ2008 parts")
    scores = tmp_path / "s5.csv"
    subprocess.run([sys.executable, str(ROOT / "analysis" / "mq2008_two_scorers.py"),
                    str(scores)], check=True, cwd=ROOT, capture_output=True)
    rep = diagnose(scores, scores=["xgb_loss_agg", "xgb_label_agg"],
                   labels=["relevant", "click"], qid="qid", seed=0)
    auc = rep.tables["auc"].set_index(["scorer", "label"])
    win = rep.tables["win_rates"].set_index("scorer")
    summary = rep.tables["summary"].set_index("scorer")
    for scorer, cells in _report_rows().items():
        for cell, label in zip(cells[:2], ["relevant", "click"], strict=True):
            r = auc.loc[(scorer, label)]
            assert cell == f"{r.auc:.3f} [{r.auc_ci_low:.3f}, {r.auc_ci_high:.3f}]", (scorer, label)
        assert cells[2] == f"{win.loc[scorer, 'win_rate']:.3f}"
        s = summary.loc[scorer]
        assert cells[3] == f"{s.min_auc:.3f} ({s.min_auc_label})"
        assert cells[4] == f"{s.diff_auc:.3f}"
    paired = rep.tables["paired"].set_index(["label", "metric"])
    click, rel = paired.loc[("click", "gauc")], paired.loc[("relevant", "gauc")]
    text = (f"(+{click['diff']:.3f}\n[{click.ci_low:.3f}, {click.ci_high:.3f}], "
            f"p = {click.p_value:.3f}) and no difference on relevance "
            f"({rel['diff']:.3f}, p = {rel.p_value:.2f})").replace("-", "−")
    assert text.replace("\n", " ") in " ".join(TEXT.split())
