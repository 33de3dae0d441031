"""Diagnose your own scores: per-label AUCs with uncertainty, query-level AUCs, label dictatorship
and paired comparisons of scorers (docs/theory.md §2, §4, §7).

:func:`diagnose` reads a table of scores, binary labels, optional query ids and row weights (a
DataFrame, a mapping of columns, or a CSV/Parquet file, :func:`load_scores`) and reports, per
scorer: the **per-label AUC** (pooled over rows, ties ½) with the interval ``AUC ± z·se``
(clipped to [0, 1]) — ``se`` from DeLong (:func:`delong_auc_variance`) for pooled rows, from a
seeded **bootstrap over queries** when query ids are given (rows of a query are not
independent; the bootstrap variance is multiplied by ``G/(G − 1)``, its bias when resampling G
clusters; with few queries, say G < 30, the intervals still run narrow); the **gAUC** of every
label (:func:`bipartite.metrics.group_auc`) with its interval and the **per-query × per-label**
AUCs; the **cross-pair win rates** ``W_{k>j}`` (docs/theory.md §7.5: who wins the (k only) vs
(j only) pairs, ½ even-handed) with intervals and the near-tie rate; **Diff** and **Min AUC**
(percentile bootstrap intervals). For the labels: the priors π̂_k, the effective weights
``α_k = 1/(π_k(1−π_k))`` of loss aggregation with ``a = 1``, their shares and the dictator it
would produce (:func:`bipartite.dictatorship.dictator`). For each pair of scorers: the paired
AUC (and gAUC) difference per label, with DeLong's paired test (pooled rows) or the paired query
bootstrap.

Labels and scorers keep their column names everywhere. Undefined values (a label with one class,
an empty cross-pair set, a query without both classes) are NaN in the tables and ``null`` in the
JSON, always with a reason in the row's ``note``.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_array,
    check_binary,
    check_consistent_length,
    check_option,
    check_positive,
    check_random_state,
    check_sample_weight,
)
from bipartite.dictatorship import (
    cross_pair_win_rate,
    dictator,
    effective_weight_shares,
    effective_weights,
    near_tie_rate,
)
from bipartite.metrics import group_auc, multilabel_auc

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["Diagnostics", "diagnose", "load_scores", "delong_auc_variance", "delong_paired_test"]

_READERS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
_WEIGHTINGS = ("pairs", "uniform", "impressions")


# --------------------------------------------------------------------------------------------
# Kernels: placements (DeLong), reweighted AUCs (bootstrap), per-query AUCs
# --------------------------------------------------------------------------------------------
def _placements(s: np.ndarray, pos: np.ndarray, neg: np.ndarray):
    """One sort. For every item: the negative weight scored strictly below it plus ½ the tied
    negative weight (``below``), and the positive weight strictly above it plus ½ the tied
    (``above``); and the totals P, N. Then ``AUC = Σ_i pos_i below_i / (P N)`` (docs/theory.md
    §2.3) and DeLong's placement values are ``below/N`` (positives) and ``above/P`` (negatives)."""
    order = np.argsort(s, kind="stable")
    ss = s[order]
    tid = np.cumsum(np.r_[True, ss[1:] != ss[:-1]]) - 1
    Pt, Nt = np.bincount(tid, pos[order]), np.bincount(tid, neg[order])
    P, N = float(Pt.sum()), float(Nt.sum())
    below, above = np.empty(len(s)), np.empty(len(s))
    below[order] = (np.cumsum(Nt) - 0.5 * Nt)[tid]
    above[order] = (P - np.cumsum(Pt) + 0.5 * Pt)[tid]
    return below, above, P, N


def _delong(s: np.ndarray, pos: np.ndarray, neg: np.ndarray):
    """AUC and the centred, weighted placement terms whose sums of squares (products, for two
    scorers) give DeLong's variance: ``var = Σ a_i² + Σ b_j²`` with
    ``a_i = pos_i (below_i/N − θ)/P · √(m/(m−1))`` over positives (m of them) and likewise ``b``
    over negatives. With unit weights this is DeLong, DeLong & Clarke-Pearson (1988):
    ``S10/m + S01/n``; with weights, its linearisation (sandwich) form."""
    below, above, P, N = _placements(s, pos, neg)
    if not (P > 0 and N > 0):
        return float("nan"), None, None
    theta = float(np.dot(pos, below) / (P * N))
    m, n = int(np.count_nonzero(pos)), int(np.count_nonzero(neg))
    a = pos * (below / N - theta) / P * (math.sqrt(m / (m - 1)) if m > 1 else np.nan)
    b = neg * (above / P - theta) / N * (math.sqrt(n / (n - 1)) if n > 1 else np.nan)
    return theta, a, b


def _boot_auc(order: np.ndarray, starts: np.ndarray, R: np.ndarray, pos: np.ndarray,
              neg: np.ndarray) -> np.ndarray:
    """AUCs of one scorer for many row reweightings at once: ``R`` (B, n) holds the row
    multiplicities **in score order** ``order``, ``starts`` the tie-group starts in that order.
    Per replicate ``Σ_t P_t (N_<t + ½ N_t) / (ΣP ΣN)``; NaN where a class has no weight."""
    Pt = np.add.reduceat(R * pos[order], starts, axis=1)
    Nt = np.add.reduceat(R * neg[order], starts, axis=1)
    num = np.einsum("bt,bt->b", Pt, np.cumsum(Nt, axis=1) - 0.5 * Nt)
    den = Pt.sum(axis=1) * Nt.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _per_query_auc(s: np.ndarray, pos: np.ndarray, neg: np.ndarray, g: np.ndarray, G: int):
    """Per-query AUCs ``(AUC_q, P_q, N_q)`` from one lexicographic sort (query, score); AUC_q is
    NaN where the query lacks a class."""
    order = np.lexsort((s, g))
    ss, gg = s[order], g[order]
    new = np.r_[True, (ss[1:] != ss[:-1]) | (gg[1:] != gg[:-1])]
    tid = np.cumsum(new) - 1
    tg = gg[new]
    Pt, Nt = np.bincount(tid, pos[order]), np.bincount(tid, neg[order])
    cum = np.cumsum(Nt)
    first = np.r_[True, tg[1:] != tg[:-1]]
    base = (cum - Nt)[first][np.cumsum(first) - 1]  # negative weight before the query began
    num = np.bincount(tg, Pt * (cum - base - 0.5 * Nt), minlength=G)
    P, N = np.bincount(g, pos, minlength=G), np.bincount(g, neg, minlength=G)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((P > 0) & (N > 0), num / (P * N), np.nan), P, N


def _ci_normal(est: float, var: float, level: float, lo: float = 0.0
               ) -> tuple[float, float, float]:
    """(se, low, high) of the Wald interval ``est ± z se``, clipped to [lo, 1] (AUCs: [0, 1];
    differences: [−1, 1]); NaN when var is NaN."""
    from scipy.stats import norm

    if not np.isfinite(var) or not np.isfinite(est):
        return float("nan"), float("nan"), float("nan")
    se = math.sqrt(max(var, 0.0))
    z = float(norm.ppf(0.5 + level / 2))
    return se, max(lo, est - z * se), min(1.0, est + z * se)


def _boot_var(reps: np.ndarray, units: int) -> tuple[float, float]:
    """(variance, share of undefined replicates) of bootstrap replicates over ``units`` resampled
    units, times ``units/(units − 1)``: resampling G clusters gives a mean's variance times
    (G − 1)/G, so the factor removes that bias (it matters with few queries)."""
    ok = reps[np.isfinite(reps)]
    bad = 1.0 - len(ok) / max(len(reps), 1)
    var = float(ok.var(ddof=1)) * units / (units - 1) if len(ok) > 1 and units > 1 else np.nan
    return var, bad


def _ci_percentile(reps: np.ndarray, level: float) -> tuple[float, float, float]:
    """(low, high, share of undefined replicates) of a percentile bootstrap interval."""
    ok = reps[np.isfinite(reps)]
    bad = 1.0 - len(ok) / max(len(reps), 1)
    if len(ok) < 2:
        return float("nan"), float("nan"), bad
    lo, hi = np.quantile(ok, [0.5 - level / 2, 0.5 + level / 2])
    return float(lo), float(hi), bad


# --------------------------------------------------------------------------------------------
# DeLong: public entry points
# --------------------------------------------------------------------------------------------
def _check_binary_scores(y_true: ArrayLike, scores: Sequence[ArrayLike], sample_weight: ArrayLike | None):
    y = check_binary(y_true, "y_true")
    ss = [check_array(s, name, ndim=1, exact_integers="order") for name, s in scores]
    check_consistent_length(y_true=y, **dict(zip([n for n, _ in scores], ss, strict=True)))
    w = check_sample_weight(sample_weight, len(y))
    if w.size and w.max() > 0:  # rescale by a power of two (exact): 1e-170 weights must not underflow
        w = np.ldexp(w, -int(np.frexp(w.max())[1]))
    return y, ss, w


def delong_auc_variance(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None
                        ) -> tuple[float, float]:
    """The AUC (ties ½) and DeLong's estimate of its variance (docs/theory.md §2.3).

    ``var = S10/m + S01/n`` with the placement values ``V10_i`` (the share of negatives scored
    below positive i, ties ½) and ``V01_j`` (of positives above negative j), and
    ``S10 = Σ_i (V10_i − AUC)² / (m − 1)`` (DeLong, DeLong & Clarke-Pearson, Biometrics 1988).
    With ``sample_weight``, weighted placements and the linearisation (sandwich) variance, equal
    to DeLong's for unit weights. One sort: O(n log n). NaN (with a warning) when a class is
    empty; the variance is NaN when a class has a single row.

    >>> auc, var = delong_auc_variance([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> auc, round(var, 12)  # V10 = (0.5, 1), V01 = (1, 0.5): S10/2 + S01/2 = 0.125/2 + 0.125/2
    (0.75, 0.125)
    """
    y, (s,), w = _check_binary_scores(y_true, [("y_score", y_score)], sample_weight)
    theta, a, b = _delong(s, w * y, w * (1 - y))
    if a is None:
        warnings.warn("AUC is undefined: y_true has only one class (with positive weight).",
                      UndefinedMetricWarning, stacklevel=2)
        return float("nan"), float("nan")
    return theta, float(np.sum(a * a) + np.sum(b * b))


def _check_level(level: Any) -> float:
    """A confidence level: a real number strictly inside (0, 1)."""
    if (isinstance(level, bool) or not isinstance(level, float | int | np.floating | np.integer)
            or not 0 < level < 1):
        raise ValueError(f"The 'level' parameter must be a number in (0, 1), got {level!r}.")
    return float(level)


def delong_paired_test(y_true: ArrayLike, score_a: ArrayLike, score_b: ArrayLike, *, sample_weight: ArrayLike | None = None,
                       level: float = 0.95) -> dict[str, float]:
    """DeLong's paired test of ``AUC(a) = AUC(b)`` on the same rows (docs/theory.md §2.3).

    ``var(AUC_a − AUC_b) = var_a + var_b − 2 cov_ab`` from both scorers' placement values
    (:func:`delong_auc_variance`); returns ``auc_a``, ``auc_b``, ``diff``, ``se``, the Wald
    ``ci_low``/``ci_high`` at ``level``, ``z`` and the two-sided ``p_value`` (1 when identical).

    >>> r = delong_paired_test([0, 0, 1, 1, 0, 1], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    >>> r["diff"], r["p_value"]
    (0.0, 1.0)
    """
    _check_level(level)
    y, (sa, sb), w = _check_binary_scores(
        y_true, [("score_a", score_a), ("score_b", score_b)], sample_weight)
    ta, aa, ba = _delong(sa, w * y, w * (1 - y))
    tb, ab, bb = _delong(sb, w * y, w * (1 - y))
    if aa is None:
        warnings.warn("AUC is undefined: y_true has only one class (with positive weight).",
                      UndefinedMetricWarning, stacklevel=2)
    return {"auc_a": ta, "auc_b": tb, "diff": ta - tb,
            **_paired_delong((aa, ba), (ab, bb), ta - tb, level)}


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------
def load_scores(path: str | os.PathLike, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a score table (CSV, TSV or Parquet, by suffix; ``.gz`` CSV too) into a DataFrame.

    ``columns``: the columns that must be present; a missing one raises a ``ValueError`` naming
    the file, the column and the columns it has. A missing file raises ``FileNotFoundError``
    naming it.
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"The score file '{p}' does not exist (or is not a file).")
    kind = _READERS.get(Path(p.name.lower().removesuffix(".gz")).suffix)
    if kind is None:
        raise ValueError(f"The score file '{p}' must end in one of {sorted(_READERS)} (or .csv.gz)"
                         f", got {''.join(p.suffixes) or 'no suffix'!r}.")
    try:
        df = pd.read_parquet(p) if kind == "parquet" else pd.read_csv(
            p, sep="\t" if kind == "tsv" else ",")
    except Exception as exc:  # the reader's error, with the file named
        raise ValueError(f"Could not read the score file '{p}' as {kind}: {exc}") from exc
    missing = [c for c in (columns or []) if c not in df.columns]
    if missing:
        raise ValueError(f"The score file '{p}' has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df


def _as_names(value: Any, name: str) -> list[str]:
    names = [value] if isinstance(value, str) else list(value if value is not None else [])
    if not names or not all(isinstance(v, str) for v in names):
        raise ValueError(f"The '{name}' parameter must be a column name or a non-empty list of "
                         f"column names, got {value!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"The '{name}' parameter has repeated columns: {names}.")
    return names


def _frame(data: pd.DataFrame | Mapping[str, ArrayLike] | str | os.PathLike, needed: list[str]) -> tuple[pd.DataFrame, str]:
    import pandas as pd

    if isinstance(data, str | os.PathLike):
        return load_scores(data, columns=needed), f"file '{data}'"
    if isinstance(data, pd.DataFrame | Mapping):
        df, where = (data if isinstance(data, pd.DataFrame) else pd.DataFrame(
            {k: np.asarray(v) for k, v in data.items()})), "data"
    else:
        raise TypeError(f"The 'data' parameter must be a DataFrame, a mapping of columns or a path "
                        f"to a CSV/Parquet file, got {type(data).__name__}.")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"The 'data' parameter has no column {missing[0]!r}; its columns are "
                         f"{list(map(str, df.columns))}.")
    return df, where


def _column(df: pd.DataFrame, col: str, role: str, where: str) -> np.ndarray:
    """A numeric column as float64; errors name the column, its role and the first bad row."""
    import pandas as pd

    v = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        raw = _plain(df[col].iloc[int(bad[0])])
        raise ValueError(f"The {role} column {col!r} of the {where} must hold finite numbers, got "
                         f"{raw!r} at row {int(bad[0])} ({bad.size} such rows).")
    off = np.flatnonzero((v != 0) & (v != 1) if role == "label" else (v < 0) if role == "weight"
                         else np.zeros(len(v), dtype=bool))
    if off.size:
        must = "hold only 0 and 1" if role == "label" else "be non-negative"
        raise ValueError(f"The {role} column {col!r} of the {where} must {must}, got "
                         f"{v[off[0]]:g} at row {int(off[0])}.")
    return v


# --------------------------------------------------------------------------------------------
# The diagnosis
# --------------------------------------------------------------------------------------------
def _join(*notes: str | None) -> str | None:
    return "; ".join(dict.fromkeys(n for n in notes if n)) or None  # each reason once


def _boot_note(bad: float, n_boot: int) -> str | None:
    return (f"{100 * bad:.1f}% of the {n_boot} bootstrap replicates were undefined and left out"
            if n_boot and bad > 0 else None)


def diagnose(
    data: pd.DataFrame | Mapping[str, ArrayLike] | str | os.PathLike,
    scores: str | Sequence[str],
    labels: str | Sequence[str],
    *,
    qid: str | None = None,
    weight: str | None = None,
    seed: int | np.random.Generator = 0,
    n_boot: int = 1000,
    level: float = 0.95,
    tol: float = 1e-6,
    gauc_weighting: str = "pairs",
    progress: bool = False,
) -> Diagnostics:
    """Diagnose one or more scorers against binary labels (docs/theory.md §2, §4, §7).

    Parameters
    ----------
    data : pandas DataFrame, mapping of column name → 1-D array, or path to a CSV/TSV/Parquet
        file (read by :func:`load_scores`)
    scores : column name(s) of the scorers (higher ranks first)
    labels : column name(s) of the binary labels (0/1)
    qid : column name of the query ids, optional. With it the intervals come from a bootstrap
        over queries and gAUCs and per-query AUCs are reported; without it every row is
        independent (DeLong intervals; gAUC undefined).
    weight : column name of non-negative row weights, optional (a pair weighs ``w_i w_j``)
    seed : int, None or numpy Generator — the bootstrap's resampling
    n_boot : int ≥ 0 — bootstrap replicates (queries with ``qid``, rows without: the latter only
        for the Diff/Min AUC intervals); 0 skips the bootstrap (those intervals are then null)
    level : confidence level of every interval (default 0.95)
    tol : the near-tie tolerance of :func:`bipartite.dictatorship.near_tie_rate`
    gauc_weighting : {"pairs", "uniform", "impressions"} — query weights of the gAUC
    progress : bool — a tqdm progress bar over the bootstrap

    Returns
    -------
    Diagnostics — ``.tables`` (DataFrames), ``.to_markdown()``, ``.to_json()``, ``.figure()``,
    ``.save(directory)``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.integers(0, 2, size=(400, 2))
    >>> d = diagnose({"model": Y @ [1.0, 0.5] + rng.normal(size=400), "rel": Y[:, 0],
    ...               "click": Y[:, 1]}, scores="model", labels=["rel", "click"], n_boot=200)
    >>> d.tables["auc"][["scorer", "label"]].values.tolist()
    [['model', 'rel'], ['model', 'click']]
    >>> bool(d.tables["auc"]["auc_ci_low"].iloc[0] < d.tables["auc"]["auc"].iloc[0])
    True
    """
    import pandas as pd
    from tqdm.auto import tqdm

    score_names, label_names = _as_names(scores, "scores"), _as_names(labels, "labels")
    both = sorted(set(score_names) & set(label_names))
    if both:
        raise ValueError(f"The columns {both} are given both as 'scores' and as 'labels'.")
    for name, col in (("qid", qid), ("weight", weight)):
        if col is not None and (not isinstance(col, str) or col in score_names + label_names):
            raise ValueError(f"The '{name}' parameter must be a column name that is neither a "
                             f"score nor a label, got {col!r}.")
    n_boot = check_positive(n_boot, "n_boot", integer=True, allow_zero=True)
    tol = check_positive(tol, "tol", allow_zero=True)
    _check_level(level)
    check_option(gauc_weighting, "gauc_weighting", _WEIGHTINGS)
    rng = check_random_state(seed)
    needed = score_names + label_names + [c for c in (qid, weight) if c is not None]
    df, where = _frame(data, needed)
    n, K = len(df), len(label_names)
    if n < 2:
        raise ValueError(f"The {where} must have at least 2 rows, got {n}.")
    S = {name: _column(df, name, "score", where) for name in score_names}
    Y = np.column_stack([_column(df, c, "label", where) for c in label_names])
    w = _column(df, weight, "weight", where) if weight else np.ones(n)
    if not w.sum() > 0:
        raise ValueError(f"The weight column {weight!r} of the {where} is zero on every row.")
    if qid is not None:
        if df[qid].isna().any():
            i = int(np.flatnonzero(df[qid].isna().to_numpy())[0])
            raise ValueError(f"The qid column {qid!r} of the {where} has a missing value at row "
                             f"{i}.")
        g, qvalues = pd.factorize(df[qid], sort=True)
        G = len(qvalues)
    unit, U = (g, G) if qid is not None else (np.arange(n), n)
    pos = [w * Y[:, k] for k in range(K)]
    neg = [w * (1 - Y[:, k]) for k in range(K)]
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    cross = {(k, j): (w * ((Y[:, k] == 1) & (Y[:, j] == 0)), w * ((Y[:, j] == 1) & (Y[:, k] == 0)))
             for k, j in pairs}
    level = float(level)
    method = "DeLong" if qid is None else f"bootstrap over {G} queries (B={n_boot}) ± z se"

    # ---- labels: priors, effective weights, the dictator (loss aggregation, a = 1) ----------
    prior = np.array([pos[k].sum() / w.sum() for k in range(K)])
    defined = (prior > 0) & (prior < 1)
    alpha, share = np.full(K, np.nan), np.full(K, np.nan)
    dic = None
    if defined.any():
        alpha[defined] = effective_weights(prior[defined])
        share[defined] = effective_weight_shares(prior[defined])
        d = dictator(prior[defined]) if defined.sum() >= 2 else None
        dic = None if d is None else int(np.flatnonzero(defined)[d])
    label_rows = [{
        "label": label_names[k], "n_pos": int(np.count_nonzero(pos[k])), "prior": prior[k],
        "alpha": alpha[k], "alpha_share": share[k], "dictator": dic == k,
        "note": None if defined[k] else f"label {label_names[k]!r} has a single class: α is "
                                        "undefined and it takes no part in loss aggregation",
    } for k in range(K)]

    # ---- point estimates ------------------------------------------------------------------
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        aucs = {s: multilabel_auc(Y, S[s], sample_weight=w) for s in score_names}
        gaucs = {s: np.array([group_auc(Y[:, k], S[s], g, sample_weight=w,
                                        weighting=gauc_weighting) if qid is not None else np.nan
                              for k in range(K)]) for s in score_names}
        wins = {s: {p: cross_pair_win_rate(Y, S[s], *p, sample_weight=w) for p in pairs}
                for s in score_names}
        ties = {s: {p: near_tie_rate(Y, S[s], *p, tol=tol, sample_weight=w) for p in pairs}
                for s in score_names}
    perq = {}
    if qid is not None:
        for s in score_names:
            perq[s] = [_per_query_auc(S[s], pos[k], neg[k], g, G) for k in range(K)]

    # ---- bootstrap: the same resampled units for every scorer, label and pair ---------------
    boot = {s: {"auc": np.full((K, n_boot), np.nan), "gauc": np.full((K, n_boot), np.nan),
                "win": {p: np.full(n_boot, np.nan) for p in pairs}} for s in score_names}
    sorted_ = {s: np.argsort(S[s], kind="stable") for s in score_names}
    sorted_ = {s: (o, np.flatnonzero(np.r_[True, np.diff(S[s][o]) != 0])) for s, o in
               sorted_.items()}
    chunk = max(1, min(n_boot, 4_000_000 // max(n, U)))
    bar = tqdm(total=n_boot, desc="bootstrap", disable=not progress, leave=False)
    for b0 in range(0, n_boot, chunk):
        b1 = min(n_boot, b0 + chunk)
        M = rng.multinomial(U, np.full(U, 1.0 / U), size=b1 - b0).astype(np.float64)
        for s in score_names:
            order, starts = sorted_[s]
            R = M[:, unit[order]]
            for k in range(K):
                boot[s]["auc"][k, b0:b1] = _boot_auc(order, starts, R, pos[k], neg[k])
                if qid is not None:
                    a_q, P_q, N_q = perq[s][k]
                    lam = _query_weights(P_q, N_q, np.bincount(g, w, minlength=G),
                                         np.isfinite(a_q), gauc_weighting)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        boot[s]["gauc"][k, b0:b1] = (M @ (lam * np.nan_to_num(a_q))) / (M @ lam)
            if qid is not None:
                for p in pairs:
                    boot[s]["win"][p][b0:b1] = _boot_auc(order, starts, R, *cross[p])
        bar.update(b1 - b0)
    bar.close()
    no_boot = ("n_boot=0: no bootstrap interval" if n_boot == 0 else
               "a single query: the bootstrap over queries gives no interval" if U < 2 else None)

    def interval(est, reps=None, terms=None, lo=0.0):
        """(se, low, high, note): DeLong from placement terms, else the bootstrap replicates."""
        if terms is not None:
            var = np.nan if terms[0] is None else float(np.sum(terms[0] ** 2) + np.sum(
                terms[1] ** 2))
            bad = np.isfinite(est) and not np.isfinite(var)
            return (*_ci_normal(est, var, level, lo),
                    "a class has a single row: no DeLong variance" if bad else None)
        var, bad = _boot_var(reps, U)
        return (*_ci_normal(est, var, level, lo),
                no_boot or (_boot_note(bad, n_boot) if np.isfinite(est) else None))

    # ---- per-label AUC and gAUC --------------------------------------------------------------
    auc_rows, delong, nan = [], {}, float("nan")
    for s in score_names:
        for k, lab in enumerate(label_names):
            if qid is None:
                delong[s, k] = _delong(S[s], pos[k], neg[k])[1:]
            se, lo, hi, why = interval(aucs[s][k], boot[s]["auc"][k], delong.get((s, k)))
            gse, glo, ghi, gwhy = interval(gaucs[s][k], boot[s]["gauc"][k]) if qid else (
                nan, nan, nan, "no query ids (qid): gAUC undefined")
            if qid and not np.isfinite(gaucs[s][k]):
                gwhy = f"no query has both classes of {lab!r}: gAUC undefined"
            auc_rows.append({
                "scorer": s, "label": lab, "auc": aucs[s][k], "auc_se": se, "auc_ci_low": lo,
                "auc_ci_high": hi, "auc_method": method, "gauc": gaucs[s][k], "gauc_se": gse,
                "gauc_ci_low": glo, "gauc_ci_high": ghi,
                "n_queries_defined": int(np.isfinite(perq[s][k][0]).sum()) if qid else 0,
                "note": _join(None if np.isfinite(aucs[s][k]) else
                              f"label {lab!r} has a single class (with positive weight)",
                              why, gwhy)})

    # ---- cross-pair win rates ----------------------------------------------------------------
    win_rows = []
    for s in score_names:
        for k, j in pairs:
            wk, wj = cross[k, j]
            Wv = wins[s][k, j]
            terms = _delong(S[s], wk, wj)[1:] if qid is None else None
            se, lo, hi, why = interval(Wv, boot[s]["win"][k, j], terms)
            empty = label_names[k] if not wk.sum() > 0 else label_names[j]
            win_rows.append({"scorer": s, "label_k": label_names[k], "label_j": label_names[j],
                             "win_rate": Wv, "se": se, "ci_low": lo, "ci_high": hi,
                             "near_tie_rate": ties[s][k, j], "n_k_only": int(np.count_nonzero(wk)),
                             "n_j_only": int(np.count_nonzero(wj)), "method": method,
                             "note": _join(None if np.isfinite(Wv) else
                                           f"no row is positive for {empty!r} only: W undefined",
                                           why)})

    # ---- Diff and Min AUC (percentile bootstrap over queries, or rows) ---------------------
    summary_rows = []
    for s in score_names:
        ok = np.isfinite(aucs[s])
        row = {"scorer": s, "n_labels_defined": int(ok.sum()), "min_auc": nan,
               "min_auc_label": None, "min_ci_low": nan, "min_ci_high": nan, "diff_auc": nan,
               "diff_ci_low": nan, "diff_ci_high": nan}
        notes = [None if ok.all() else "labels with a single class are left out",
                 None if ok.any() else "no label has both classes"]
        if ok.any():
            reps = boot[s]["auc"][ok]
            if no_boot:
                reps = np.full_like(reps, np.nan)
            mlo, mhi, bad = _ci_percentile(reps.min(axis=0), level)
            dlo, dhi, _ = _ci_percentile(np.ptp(reps, axis=0), level)
            kmin = int(np.flatnonzero(ok)[np.argmin(aucs[s][ok])])
            row.update(min_auc=aucs[s][kmin], min_auc_label=label_names[kmin], min_ci_low=mlo,
                       min_ci_high=mhi, diff_auc=float(np.ptp(aucs[s][ok])), diff_ci_low=dlo,
                       diff_ci_high=dhi)
            notes += [no_boot] if no_boot else [_boot_note(bad, n_boot), "intervals: percentile "
                                                "bootstrap over " + ("queries" if qid else "rows")]
            if not no_boot and not dlo <= row["diff_auc"] <= dhi:
                notes.append("Diff AUC (a max − min) is biased upward when the labels' AUCs are "
                             "close: its interval excludes the estimate; compare the labels' "
                             "AUC intervals instead")
        Wall = np.array([wins[s][p] for p in pairs], dtype=float)
        row["dictatorship_index"] = float(np.nanmax(np.abs(2 * Wall - 1))) if np.isfinite(
            Wall).any() else nan
        if not np.isfinite(row["dictatorship_index"]):
            notes.append("no cross-pair win rate is defined" if K > 1 else "one label: no "
                         "cross pairs")
        summary_rows.append({**row, "note": _join(*notes)})

    # ---- per query × per label -----------------------------------------------------------------
    pq_rows = []
    if qid is not None:
        n_q = np.bincount(g, minlength=G)
        for s in score_names:
            for k, lab in enumerate(label_names):
                npos = np.bincount(g, Y[:, k] * (w > 0), minlength=G).astype(int)
                pq_rows += [{"scorer": s, "qid": _plain(qvalues[q]), "label": lab,
                             "n": int(n_q[q]), "n_pos": int(npos[q]), "auc": a_q,
                             "note": None if np.isfinite(a_q) else
                             f"query has no {'positive' if npos[q] == 0 else 'negative'} for "
                             f"{lab!r}"} for q, a_q in enumerate(perq[s][k][0])]

    # ---- paired differences ------------------------------------------------------------------
    paired_rows = []
    for ia, sa in enumerate(score_names):
        for sb, k, metric in itertools.product(score_names[ia + 1:], range(K),
                                               ["auc", "gauc"] if qid else ["auc"]):
            vals = aucs if metric == "auc" else gaucs
            va, vb = vals[sa][k], vals[sb][k]
            row = {"scorer_a": sa, "scorer_b": sb, "label": label_names[k], "metric": metric,
                   "value_a": va, "value_b": vb, "diff": va - vb}
            why = None if np.isfinite(va - vb) else f"{metric} of {label_names[k]!r} undefined"
            if qid is None:
                row.update(_paired_delong(delong[sa, k], delong[sb, k], va - vb, level),
                           method="DeLong paired")
                if np.isfinite(va - vb) and not np.isfinite(row["se"]):
                    why = "a class has a single row: no DeLong variance"
            else:
                var, bad = _boot_var(boot[sa][metric][k] - boot[sb][metric][k], U)
                row.update(_paired_z(va - vb, var, level),
                           method=f"paired bootstrap over {G} queries (B={n_boot}), z test")
                why = _join(why, no_boot or (_boot_note(bad, n_boot) if np.isfinite(va - vb)
                                             else None))
            paired_rows.append({**row, "note": why})

    tables = {
        "labels": pd.DataFrame(label_rows),
        "auc": pd.DataFrame(auc_rows),
        "win_rates": pd.DataFrame(win_rows, columns=[
            "scorer", "label_k", "label_j", "win_rate", "se", "ci_low", "ci_high",
            "near_tie_rate", "n_k_only", "n_j_only", "method", "note"]),
        "summary": pd.DataFrame(summary_rows),
        "per_query": pd.DataFrame(pq_rows, columns=["scorer", "qid", "label", "n", "n_pos", "auc",
                                                    "note"]),
        "paired": pd.DataFrame(paired_rows, columns=[
            "scorer_a", "scorer_b", "label", "metric", "value_a", "value_b", "diff", "se",
            "ci_low", "ci_high", "z", "p_value", "method", "note"]),
    }
    meta = {"source": where, "n_rows": n, "n_queries": G if qid is not None else None,
            "scores": score_names, "labels": label_names, "qid": qid, "weight": weight,
            "level": level, "n_boot": n_boot, "seed": seed if isinstance(seed, int) else None,
            "interval_method": method, "gauc_weighting": gauc_weighting, "near_tie_tol": tol,
            "dictator": None if dic is None else label_names[dic]}
    return Diagnostics(tables=tables, meta=meta)


def _query_weights(P: np.ndarray, N: np.ndarray, W: np.ndarray, ok: np.ndarray,
                   weighting: str) -> np.ndarray:
    """λ_q of :func:`bipartite.metrics.group_auc` (0 where the query AUC is undefined)."""
    lam = P * N if weighting == "pairs" else (np.ones_like(P) if weighting == "uniform" else W)
    return np.where(ok, lam, 0.0)


def _paired_delong(da: tuple, db: tuple, diff: float, level: float) -> dict[str, float]:
    """se, interval, z and p of DeLong's paired test from two scorers' placement terms."""
    var = float("nan") if da[0] is None or db[0] is None else float(
        np.sum((da[0] - db[0]) ** 2) + np.sum((da[1] - db[1]) ** 2))
    return _paired_z(diff, var, level)


def _paired_z(diff: float, var: float, level: float) -> dict[str, float]:
    """se, Wald interval, z and two-sided normal p-value of a difference with variance var
    (identical rankings: se = 0, z = 0, p = 1)."""
    from scipy.stats import norm

    nan = float("nan")
    if not (np.isfinite(var) and np.isfinite(diff)):
        return {"se": nan, "ci_low": nan, "ci_high": nan, "z": nan, "p_value": nan}
    se, lo, hi = _ci_normal(diff, var, level, -1.0)
    if se <= 1e-15:
        z, p = (0.0, 1.0) if abs(diff) <= 1e-15 else (math.copysign(math.inf, diff), 0.0)
    else:
        z, p = diff / se, float(2 * norm.sf(abs(diff / se)))
    return {"se": se, "ci_low": lo, "ci_high": hi, "z": z, "p_value": p}


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python value (JSON-friendly query ids)."""
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------------------------
# The result: tables, Markdown, strict JSON, a figure
# --------------------------------------------------------------------------------------------
def _record(row: dict) -> dict:
    """A table row for JSON: NaN → null (the row's ``note`` says why), numpy → Python."""
    out = {k: (None if isinstance(v, float) and not math.isfinite(v) else _plain(v))
           for k, v in row.items()}
    if out.get("note") is None and any(v is None for k, v in out.items() if k != "note"):
        out["note"] = "undefined"  # every null carries a reason
    return out


def _fmt(x: Any, digits: int) -> str:
    if isinstance(x, float | np.floating):
        t = f"{x:.{digits}f}" if np.isfinite(x) else "–"
        return t[1:] if t.startswith("-") and float(t) == 0 else t  # no "-0.000"
    return "–" if x is None else str(x)


def _md(header: list[str], rows: list[list[Any]], digits: int) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(v, digits) for v in r) + " |" for r in rows]
    return lines + [""]


def _p(p: Any, digits: int) -> str:
    return "–" if not np.isfinite(p) else (f"< {10.0 ** -digits:g}" if p < 10.0 ** -digits
                                           else f"{p:.{digits}f}")


def _ci(lo: Any, hi: Any, digits: int) -> str:
    return "–" if not (np.isfinite(lo) and np.isfinite(hi)) else \
        f"[{lo:.{digits}f}, {hi:.{digits}f}]"


@dataclass
class Diagnostics:
    """The result of :func:`diagnose`: ``meta`` (data, options, interval method) and ``tables``,
    pandas DataFrames whose ``note`` column explains every NaN of its row — ``labels`` (``n_pos``,
    ``prior``, ``alpha`` = 1/(π(1−π)), ``alpha_share``, ``dictator``); ``auc`` (per scorer ×
    label: ``auc``, ``gauc``, each with ``_se``, ``_ci_low``, ``_ci_high``); ``win_rates`` (per
    scorer × label pair k before j: ``win_rate`` = W_{k>j}, ``se``, ``ci_low/high``,
    ``near_tie_rate``, ``n_k_only``, ``n_j_only``); ``summary`` (per scorer: Min AUC and its
    label, Diff AUC, percentile intervals, dictatorship index ``max |2W − 1|``); ``per_query``
    (per scorer × query × label: ``n``, ``n_pos``, ``auc``); ``paired`` (per scorer pair ×
    label × metric: ``diff`` = a − b, ``se``, ``ci_low/high``, ``z``, ``p_value``)."""

    tables: dict[str, pd.DataFrame]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python (JSON-ready): ``{"format", "meta", <table>: [records]}``."""
        out: dict[str, Any] = {"format": "bipartite.diagnostics/1",
                               "meta": {k: _plain(v) for k, v in self.meta.items()}}
        for name, df in self.tables.items():
            out[name] = [_record(r) for r in df.to_dict("records")]
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """Strict JSON (RFC 8259): no NaN or Infinity literals — undefined values are ``null``
        and the record's ``note`` gives the reason."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)

    def to_markdown(self, *, digits: int = 3, max_rows: int = 10) -> str:
        """A Markdown report; the per-query table is cut to ``max_rows`` rows per scorer."""
        m, t = self.meta, self.tables
        pct = f"{100 * m['level']:g}%"
        lines = ["# Ranking diagnostics", "",
                 f"{m['n_rows']} rows" + (f", {m['n_queries']} queries (`{m['qid']}`)"
                                          if m["qid"] else " (no query ids)")
                 + (f", weights `{m['weight']}`" if m["weight"] else "")
                 + f"; scorers {', '.join(f'`{s}`' for s in m['scores'])}; labels "
                 + ", ".join(f"`{x}`" for x in m["labels"]) + f". {pct} intervals: "
                 + m["interval_method"] + f" (seed {m['seed']}). Ties count ½.", "",
                 "## Labels", ""]
        lines += _md(["label", "positives", "prior π", "α (a = 1)", "α share", "dictator"],
                     [[r.label, r.n_pos, r.prior, r.alpha, r.alpha_share,
                       "yes" if r.dictator else ""] for r in t["labels"].itertuples()], digits)
        lines += [f"Loss aggregation with a = 1 would make `{m['dictator']}` the dictator (α share"
                  " > ½: with deterministic labels its Bayes scorer ranks every positive of "
                  f"`{m['dictator']}` above every negative, docs/theory.md §7.1)." if m["dictator"]
                  else "No label would dictate under loss aggregation with a = 1 (no α share > ½)."
                  , ""]
        for s in m["scores"]:
            lines += [f"## Scorer `{s}`", "", "### Per-label AUC", ""]
            a = t["auc"][t["auc"].scorer == s]
            lines += _md(["label", "AUC", f"{pct} CI", "gAUC", f"{pct} CI"],
                         [[r.label, r.auc, _ci(r.auc_ci_low, r.auc_ci_high, digits), r.gauc,
                           _ci(r.gauc_ci_low, r.gauc_ci_high, digits)] for r in a.itertuples()],
                         digits)
            wr = t["win_rates"][t["win_rates"].scorer == s]
            if len(wr):
                lines += ["### Cross-pair win rates", ""]
                lines += _md(["W", "value", f"{pct} CI", f"near ties (≤ {m['near_tie_tol']:g})",
                              "k only", "j only"],
                             [[f"W({r.label_k} > {r.label_j})", r.win_rate,
                               _ci(r.ci_low, r.ci_high, digits), r.near_tie_rate, r.n_k_only,
                               r.n_j_only] for r in wr.itertuples()], digits)
            r = t["summary"][t["summary"].scorer == s].iloc[0]
            lines += ["### Diff and Min AUC", ""]
            lines += _md(["Min AUC", "label", f"{pct} CI", "Diff AUC", f"{pct} CI",
                          "dictatorship index"],
                         [[r.min_auc, r.min_auc_label, _ci(r.min_ci_low, r.min_ci_high, digits),
                           r.diff_auc, _ci(r.diff_ci_low, r.diff_ci_high, digits),
                           r.dictatorship_index]], digits)
            pq = t["per_query"][t["per_query"].scorer == s]
            if len(pq):
                wide = pq.pivot_table(index="qid", columns="label", values="auc", sort=True,
                                      dropna=False)[m["labels"]]
                n_q = pq.groupby("qid")["n"].first()
                lines += [f"### Per query (AUC per label; {min(max_rows, len(wide))} of "
                          f"{len(wide)} queries; all in `tables['per_query']`)", ""]
                lines += _md(["qid", "rows", *m["labels"]],
                             [[q, int(n_q[q]), *row] for q, row in
                              zip(wide.index[:max_rows], wide.to_numpy()[:max_rows],
                                  strict=True)], digits)
        if len(t["paired"]):
            lines += ["## Paired differences (a − b)", ""]
            lines += _md(["a", "b", "label", "metric", "a − b", f"{pct} CI", "p", "method"],
                         [[r.scorer_a, r.scorer_b, r.label, r.metric, r.diff,
                           _ci(r.ci_low, r.ci_high, digits), _p(r.p_value, digits), r.method]
                          for r in t["paired"].itertuples()], digits)
        notes = sorted({f"{name}: {n}" for name, df in t.items() if name != "per_query"
                        for n in df["note"].dropna()})
        if notes:
            lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
        return "\n".join(lines)

    def figure(self) -> Figure:
        """A matplotlib Figure: per-label AUC (filled) and gAUC (open) with their intervals,
        the cross-pair win rates with theirs, and (with query ids) the ECDF of the per-query
        AUCs. Colour = scorer, line style and marker = label; error bars = the intervals."""
        from bipartite.plots import new_figure

        m, t = self.meta, self.tables
        S, L, has_q = m["scores"], m["labels"], m["qid"] is not None
        styles, marks = ["-", "--", ":", "-."], ["o", "s", "^", "D", "v"]
        fig, axes = new_figure(1, 2 + has_q, figsize=(4.4 * (2 + has_q), 3.6),
                               layout="constrained")

        def bar(ax, x, val, lo, hi, i, k, fill=True):
            if np.isfinite(val):
                err = [[val - lo], [hi - val]] if np.isfinite(lo) else None
                eb = ax.errorbar(x + (i - (len(S) - 1) / 2) * 0.15, val, yerr=err, capsize=3,
                                 color=f"C{i % 10}", marker=marks[k % 5],
                                 mfc=f"C{i % 10}" if fill else "white")
                if eb[-1]:
                    eb[-1][0].set_linestyle(styles[k % 4])

        for i, s in enumerate(S):
            for k, r in enumerate(t["auc"][t["auc"].scorer == s].itertuples()):
                bar(axes[0], k, r.auc, r.auc_ci_low, r.auc_ci_high, i, k)
                bar(axes[0], k + 0.06, r.gauc, r.gauc_ci_low, r.gauc_ci_high, i, k, fill=False)
            for p, r in enumerate(t["win_rates"][t["win_rates"].scorer == s].itertuples()):
                bar(axes[1], p, r.win_rate, r.ci_low, r.ci_high, i, L.index(r.label_k))
            axes[0].plot([], [], color=f"C{i % 10}", label=s)
        for k, lab in enumerate(L):
            axes[0].plot([], [], color="grey", ls=styles[k % 4], marker=marks[k % 5], label=lab)
        wr = t["win_rates"]
        pairs = list(dict.fromkeys(zip(wr.label_k, wr.label_j, strict=True)))
        axes[0].set(xticks=range(len(L)), xticklabels=L, xlim=(-0.5, len(L) - 0.5),
                    ylabel="AUC (filled) / gAUC (open)", title="Per-label AUC")
        axes[1].set(xticks=range(len(pairs)), xticklabels=[f"W({k}>{j})" for k, j in pairs],
                    xlim=(-0.5, max(len(pairs), 1) - 0.5), ylim=(-0.02, 1.02),
                    title="Cross-pair win rates (½ = even-handed)")
        for ax in axes[:2]:
            ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        axes[0].legend(fontsize=7)
        if has_q:
            pq = t["per_query"]
            for (i, s), (k, lab) in itertools.product(enumerate(S), enumerate(L)):
                v = np.sort(pq[(pq.scorer == s) & (pq.label == lab)].auc.dropna().to_numpy())
                if len(v):
                    axes[2].step(v, np.arange(1, len(v) + 1) / len(v), where="post",
                                 color=f"C{i % 10}", ls=styles[k % 4], label=f"{s} · {lab}")
            axes[2].set(xlabel="per-query AUC", ylabel="share of queries", xlim=(-0.02, 1.02),
                        title="Per-query AUC (ECDF)")
            axes[2].legend(fontsize=7)
        return fig

    def save(self, directory: str | os.PathLike, *, figure: bool = True) -> list[Path]:
        """Write ``report.md``, ``report.json``, one CSV per table and ``report.png`` and
        ``report.pdf`` (with ``figure``) into ``directory`` (created); return the paths."""
        from bipartite.plots import save_figures

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(self.to_markdown() + "\n", encoding="utf-8")
        (out / "report.json").write_text(self.to_json() + "\n", encoding="utf-8")
        paths = [out / "report.md", out / "report.json"] + [out / f"{t}.csv" for t in self.tables]
        for name, df in self.tables.items():
            df.to_csv(out / f"{name}.csv", index=False)
        if figure:
            paths += save_figures(self.figure(), out, "report")
        return paths
