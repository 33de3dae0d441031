"""The diagnosis (:func:`diagnose`), a report layer over the grouped-AUC engine
(:class:`bipartite.metrics.QuerySegments`, :func:`bipartite.metrics.grouped_stats`), in named
steps: read and check the table (:func:`_read`), the label table (:func:`_label_table`), the point
estimates (:func:`_estimates`), the bootstrap (:func:`_bootstrap`), then one function per output
table."""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_option,
    check_positive,
    check_random_state,
)
from bipartite.diagnostics._dictator import DICTATORSHIP_COLUMNS, dictatorship_rows
from bipartite.diagnostics._inference import (
    boot_label_aucs,
    boot_pair_win_rates,
    boot_var,
    check_level,
    ci_normal,
    delong_terms,
    holm,
    paired_delong,
    paired_z,
)
from bipartite.diagnostics._intervals import (
    COVERAGE_TARGET,
    boot_interval,
    check_interval,
    loo_auc,
    queries_needed,
    t_p_value,
)
from bipartite.diagnostics._pairs import PairStats, pair_stats
from bipartite.diagnostics._report import Diagnostics
from bipartite.diagnostics._tables import as_names, column, frame, plain
from bipartite.dictatorship import (
    dictator,
    effective_weight_shares,
    effective_weights,
)
from bipartite.metrics import (
    GAUC_WEIGHTINGS,
    GroupedStats,
    QuerySegments,
    grouped_stats,
    multilabel_auc,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GAUC_DEFINITIONS", "HOLM", "MAX_BOOT_BYTES", "MAX_N_BOOT", "diagnose"]

#: What the gAUC of each weighting is, as the report prints it.
GAUC_DEFINITIONS = {
    "pairs": "pair-weighted: each query weighs its positive × negative pair weight, so the gAUC "
             "is the share of all within-query pairs ranked right (gauc_weighting='pairs', "
             "--gauc-weighting pairs)",
    "uniform": "query-averaged: the mean of the per-query AUCs, every query alike, as "
               "torchmetrics' and most recommender papers' gAUC (gauc_weighting='uniform', "
               "--gauc-weighting uniform)",
    "impressions": "impression-weighted: per-query AUCs weighed by the query's row weight "
                   "(gauc_weighting='impressions', --gauc-weighting impressions)",
}
#: The multiple-testing correction of the paired comparisons.
HOLM = ("Holm (1979) step-down adjustment of the paired tests' p-values, one family per metric "
        "(every scorer pair × label): column p_holm, family-wise error ≤ α")

#: Largest ``n_boot`` :func:`diagnose` accepts (a million replicates: far past where the
#: intervals stop changing).
MAX_N_BOOT = 1_000_000
#: Largest memory the bootstrap replicates may take (bytes): per scorer, 8 bytes × n_boot × (2 K
#: + K(K − 1)/2) for the AUCs, gAUCs and win rates of K labels. Checked before anything is read.
MAX_BOOT_BYTES = 2 * 2**30


#: How each interval method reads in the report's method column.
_KIND = {"wald": "est ± z·se", "t": "est ± t(G−1)·se", "percentile": "percentile",
         "bca": "BCa (jackknife acceleration)"}


def _join(*notes: str | None) -> str | None:
    return "; ".join(dict.fromkeys(n for n in notes if n)) or None  # each reason once


def _boot_note(bad: float, n_boot: int) -> str | None:
    return (f"{100 * bad:.1f}% of the {n_boot} bootstrap replicates were undefined and left out"
            if n_boot and bad > 0 else None)


@dataclass
class _Data:
    """The checked table: scores ``S`` (name → (n,)), labels ``Y`` (n, K), row weights ``w``,
    query codes ``g`` (G queries, ids ``qvalues``) or None, the bootstrap units (queries or
    rows), the per-label masses and the label pairs (k < j; their cross-pair masses are built
    in blocks, :func:`bipartite.diagnostics._pairs.cross_masks`)."""

    where: str
    n_dropped: int
    score_names: list[str]
    label_names: list[str]
    S: dict[str, np.ndarray]
    Y: np.ndarray
    w: np.ndarray
    qid: str | None
    g: np.ndarray | None
    G: int
    qvalues: Any
    unit: np.ndarray
    U: int
    pos: list[np.ndarray]
    neg: list[np.ndarray]
    pairs: list[tuple[int, int]]

    @property
    def n(self) -> int:
        return len(self.w)

    @property
    def K(self) -> int:
        return len(self.label_names)


@dataclass
class _Estimates:
    aucs: dict[str, np.ndarray]
    gaucs: dict[str, np.ndarray]
    stats: dict[str, GroupedStats]
    wins: dict[str, PairStats]


@dataclass
class _Ctx:
    """What every interval needs: the level, the bootstrap units and replicates, and why there is
    no bootstrap interval (``no_boot``), if so."""

    level: float
    U: int
    n_boot: int
    no_boot: str | None
    method: str
    interval_kind: str = "wald"
    jack: dict = field(default_factory=dict)

    def jk(self, s: str, metric: str, i) -> np.ndarray | None:
        """The jackknife values of scorer ``s``'s ``metric`` row(s) ``i`` (BCa only)."""
        return self.jack[s][metric][i] if self.jack else None

    def interval(self, est, reps=None, terms=None, lo=0.0, jack=None):
        """(se, low, high, note): DeLong from placement terms, else the bootstrap replicates
        by the chosen method (:func:`bipartite.diagnostics._intervals.boot_interval`; ``jack``:
        the jackknife values BCa needs)."""
        if terms is not None:
            var = np.nan if terms[0] is None else float(np.sum(terms[0] ** 2) + np.sum(
                terms[1] ** 2))
            bad = np.isfinite(est) and not np.isfinite(var)
            return (*ci_normal(est, var, self.level, lo),
                    "a class has a single row: no DeLong variance" if bad else None)
        var, bad = boot_var(reps, self.U)
        se = float(np.sqrt(var)) if np.isfinite(var) and np.isfinite(est) else float("nan")
        low, high = (float("nan"),) * 2 if self.no_boot else boot_interval(
            self.interval_kind, est, reps, jack, se, self.U, self.level, lo)
        return (se, low, high,
                self.no_boot or (_boot_note(bad, self.n_boot) if np.isfinite(est) else None))


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
    positive_label: str | int | float | bool | None = None,
    dropna: bool = False,
    interval: str = "auto",
) -> Diagnostics:
    """Diagnose one or more scorers against binary labels (docs/theory.md §2, §4, §7).

    Parameters
    ----------
    data : pandas, polars or pyarrow table (or another with the dataframe interchange
        protocol), mapping of column name → 1-D array, or path to a CSV/TSV/Parquet file (read by
        :func:`load_scores`; ``"-"``: standard input)
    scores : column name(s) of the scorers (higher ranks first), any number; every pair of
        scorers is compared per label (the ``paired`` table, with Holm-adjusted p-values)
    labels : column name(s) of the binary labels (0/1, or two values of which
        ``positive_label`` is the positive one)
    qid : column name of the query ids, optional. With it the intervals come from a bootstrap
        over queries and gAUCs and per-query AUCs are reported; without it every row is
        independent (DeLong intervals; gAUC undefined).
    weight : column name of non-negative row weights, optional (a pair weighs ``w_i w_j``)
    seed : int, None or numpy Generator — the bootstrap's resampling
    n_boot : int ≥ 0 — bootstrap replicates (queries with ``qid``, rows without: the latter only
        for the Diff/Min AUC intervals); 0 skips the bootstrap (those intervals are then null).
        At most :data:`MAX_N_BOOT` (10⁶), and its replicate tables at most :data:`MAX_BOOT_BYTES`
        (2 GiB: 8 bytes × n_boot × scorers × (2K + K(K − 1)/2)); past either a ``ValueError``
        naming ``n_boot`` is raised before anything is read or allocated
    level : confidence level of every interval (default 0.95)
    tol : the near-tie tolerance of :func:`bipartite.dictatorship.near_tie_rate`
    gauc_weighting : {"pairs", "uniform", "impressions"} — query weights of the gAUC:
        ``"pairs"`` (default) weighs each query by its positive × negative pair weight, so the
        gAUC is the share of all within-query pairs ranked right (pair-weighted); ``"uniform"``
        averages the per-query AUCs, each query alike (query-averaged, as torchmetrics' and
        most recommender papers' gAUC); ``"impressions"`` weighs queries by their row weight.
        The report states the definition used (``meta["gauc_definition"]``)
    progress : bool — a tqdm progress bar over the bootstrap
    positive_label : str, number or bool, optional — the value of the label columns that
        means positive (``"yes"``, ``"click"``, ``True``...); each label column must then hold
        at most two distinct values (a numeric 0/1 column is read as it is when the value is
        not a number). Default: the labels must be 0/1 (or booleans)
    dropna : bool — drop the rows with a missing value in any column used (their number is
        ``meta["n_dropped"]``); default False: a missing value is an error naming its row
    interval : {"auto", "wald", "t", "percentile", "bca"} — how the bootstrap replicates
        become intervals (docs/coverage.md): ``"wald"`` ``est ± z se``, ``"t"`` ``est ±
        t_{U−1} se`` (U resampled units: queries, or rows), ``"percentile"``, ``"bca"``
        (bias-corrected and accelerated, the acceleration from the leave-one-query-out
        jackknife; without query ids the leave-one-row-out one). ``"auto"`` (default) is the
        method whose simulated coverage came closest to nominal with few queries
        (:data:`bipartite.diagnostics._intervals.AUTO_INTERVAL`). DeLong intervals (no query
        ids) are not bootstrap intervals and do not change. With query ids and fewer queries
        than the chosen method needs to cover at least 93% in the simulation
        (:func:`bipartite.diagnostics._intervals.min_queries`), a ``UserWarning`` is issued and
        the report carries the same note (``meta["interval_warning"]``)

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
    score_names, label_names = as_names(scores, "scores"), as_names(labels, "labels")
    both = sorted(set(score_names) & set(label_names))
    if both:
        raise ValueError(f"The columns {both} are given both as 'scores' and as 'labels'.")
    for name, col in (("qid", qid), ("weight", weight)):
        if col is not None and (not isinstance(col, str) or col in score_names + label_names):
            raise ValueError(f"The '{name}' parameter must be a column name that is neither a "
                             f"score nor a label, got {col!r}.")
    n_boot = _check_n_boot(n_boot, len(score_names), len(label_names))
    kind = check_interval(interval)
    tol = check_positive(tol, "tol", allow_zero=True)
    level = check_level(level)
    check_option(gauc_weighting, "gauc_weighting", GAUC_WEIGHTINGS)
    rng = check_random_state(seed)
    if not isinstance(dropna, bool | np.bool_):
        raise ValueError(f"The 'dropna' parameter must be True or False, got {dropna!r}.")
    d = _read(data, score_names, label_names, qid, weight, positive_label, bool(dropna))
    label_rows, dic = _label_table(d)
    est = _estimates(d, tol, gauc_weighting)
    boot = _bootstrap(d, est, n_boot, rng, progress, gauc_weighting)
    no_boot = ("n_boot=0: no bootstrap interval" if n_boot == 0 else
               "a single query: the bootstrap over queries gives no interval" if d.U < 2 else None)
    jack = _jackknife(d, est, gauc_weighting) if kind == "bca" and n_boot and d.U > 1 else {}
    method = "DeLong" if qid is None else f"bootstrap over {d.G} queries (B={n_boot}), {_KIND[kind]}"
    ctx = _Ctx(level, d.U, n_boot, no_boot, method, kind, jack)
    few = _few_queries_warning(d, kind, n_boot)
    auc_rows, delong = _auc_table(d, est, boot, ctx)
    win_rows = _win_table(d, est, boot, ctx)
    tables = _frames(label_rows, auc_rows, win_rows, _summary_table(d, est, boot, ctx),
                     _per_query_table(d, est), _paired_table(d, est, boot, delong, ctx),
                     dictatorship_rows(label_rows, win_rows, score_names))
    n_defined = sum(1 for r in label_rows if np.isfinite(r["alpha"]))
    meta = {"source": d.where, "n_rows": d.n, "n_dropped": d.n_dropped,
            "n_queries": d.G if qid is not None else None,
            "scores": score_names, "labels": label_names, "qid": qid, "weight": weight,
            "positive_label": positive_label,
            "level": level, "n_boot": n_boot, "seed": seed if isinstance(seed, int) else None,
            "interval_method": method, "interval": kind, "interval_warning": few,
            "gauc_weighting": gauc_weighting,
            "gauc_definition": GAUC_DEFINITIONS[gauc_weighting] if qid is not None else None,
            "multiple_testing": HOLM, "near_tie_tol": tol,
            "dictator": None if dic is None else label_names[dic],
            "n_labels_defined": n_defined}
    return Diagnostics(tables=tables, meta=meta)


def _few_queries_warning(d: _Data, kind: str, n_boot: int) -> str | None:
    """A ``UserWarning`` (and its text, for the report) when there are fewer queries than the
    simulated size at which ``kind`` covers :data:`COVERAGE_TARGET` (docs/coverage.md)."""
    if d.qid is None or n_boot == 0 or d.G < 2:
        return None
    need = queries_needed(kind, d.G)
    if need is None:
        return None
    at = (f"fewer than the {need:g} at which" if np.isfinite(need) else
          "and at no simulated number of queries (5 to 200) did")
    text = (f"only {d.G} queries, {at} the {kind!r} bootstrap intervals cover "
            f"{COVERAGE_TARGET:.0%} of the time in simulation at a nominal 95% "
            "(docs/coverage.md): the intervals are likely too narrow")
    warnings.warn(text[0].upper() + text[1:] + ".", UserWarning, stacklevel=3)
    return text


def _jackknife(d: _Data, est: _Estimates, gauc_weighting: str) -> dict:
    """Leave-one-unit-out values of the bootstrapped statistics, for BCa's acceleration: with
    query ids the bootstrap kernels on the weights ``1 − I`` (each query left out in turn, G
    replicates); without, the pooled AUCs with each row left out, from DeLong's placements
    (:func:`bipartite.diagnostics._intervals.loo_auc`, O(n) per label)."""
    if d.g is not None:
        def leave_out(b0: int, b1: int) -> np.ndarray:  # rows b0..b1 of 1 − I, never all of it
            M = np.ones((b1 - b0, d.G))
            M[np.arange(b1 - b0), np.arange(b0, b1)] = 0.0
            return M

        return _bootstrap(d, est, d.G, None, False, gauc_weighting, weights=leave_out)
    out = {}
    for s in d.score_names:
        below, above = QuerySegments(d.S[s], check_input=False).placements(
            np.stack(d.pos), np.stack(d.neg))
        out[s] = {"auc": np.stack([loo_auc(d.pos[k], d.neg[k], below[k], above[k])
                                   for k in range(d.K)])}
    return out


def _check_n_boot(n_boot: Any, n_scores: int, K: int) -> int:
    """``n_boot`` within :data:`MAX_N_BOOT` and its replicates within :data:`MAX_BOOT_BYTES`."""
    n_boot = check_positive(n_boot, "n_boot", integer=True, allow_zero=True)
    if n_boot > MAX_N_BOOT:
        raise ValueError(f"The 'n_boot' parameter (--n-boot) must be at most {MAX_N_BOOT:,} "
                         f"(MAX_N_BOOT), got {n_boot:,}.")
    need = 8 * n_boot * n_scores * (2 * K + K * (K - 1) // 2)
    if need > MAX_BOOT_BYTES:
        raise ValueError(f"The 'n_boot' parameter (--n-boot) = {n_boot:,} needs "
                         f"{need / 2**30:.1f} GiB of bootstrap replicates for {n_scores} "
                         f"scorer(s) and {K} labels, past the limit of "
                         f"{MAX_BOOT_BYTES / 2**30:g} GiB (MAX_BOOT_BYTES): lower n_boot to at "
                         f"most {MAX_BOOT_BYTES // (8 * n_scores * (2 * K + K * (K - 1) // 2)):,}.")
    return n_boot


def _read(data, score_names: list[str], label_names: list[str], qid: str | None,
          weight: str | None, positive_label=None, dropna: bool = False) -> _Data:
    """Read and check the table: numeric columns (errors name the column and row), the query
    ids (factorised once, sorted: codes 0..G-1), the masses of every label and cross pair."""
    import pandas as pd

    needed = score_names + label_names + [c for c in (qid, weight) if c is not None]
    df, source = frame(data, needed)
    where = source.where
    df = df[needed].reset_index(drop=True)  # positions = the rows the messages name
    n_dropped = 0
    if dropna:
        n_all = len(df)
        df = df.dropna(subset=needed)
        n_dropped = n_all - len(df)
    n, K = len(df), len(label_names)
    if n < 2:
        raise ValueError(f"The {where} must have at least 2 rows"
                         + (f" with no missing value (dropna dropped {n_dropped})" if dropna
                            else "") + f", got {n}.")
    S = {name: column(df, name, "score", source) for name in score_names}
    Y = np.column_stack([column(df, c, "label", source, positive_label=positive_label)
                         for c in label_names])
    w = column(df, weight, "weight", source) if weight else np.ones(n)
    if not w.sum() > 0:
        raise ValueError(f"The weight column {weight!r} of the {where} is zero on every row.")
    g, G, qvalues = None, 0, None
    if qid is not None:
        if df[qid].isna().any():
            i = int(df.index[np.flatnonzero(df[qid].isna().to_numpy())[0]])
            raise ValueError(source.problem(i, f"the qid column {qid!r}", "must have no "
                                            "missing value", "an empty field or NaN")
                             + " (dropna=True, --dropna, drops such rows).")
        g, qvalues = pd.factorize(df[qid], sort=True)
        g, G = g.astype(np.int64), len(qvalues)
    unit, U = (g, G) if qid is not None else (np.arange(n), n)
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    return _Data(
        where=where, n_dropped=n_dropped, score_names=score_names, label_names=label_names,
        S=S, Y=Y, w=w, qid=qid, g=g, G=G, qvalues=qvalues, unit=unit, U=U,
        pos=[w * Y[:, k] for k in range(K)], neg=[w * (1 - Y[:, k]) for k in range(K)],
        pairs=pairs)


def _label_table(d: _Data) -> tuple[list[dict], int | None]:
    """Labels: priors, effective weights, the dictator (loss aggregation, a = 1)."""
    K = d.K
    prior = np.array([d.pos[k].sum() / d.w.sum() for k in range(K)])
    defined = (prior > 0) & (prior < 1)
    alpha, share = np.full(K, np.nan), np.full(K, np.nan)
    dic = None
    if defined.any():
        alpha[defined] = effective_weights(prior[defined])
        share[defined] = effective_weight_shares(prior[defined])
        dd = dictator(prior[defined]) if defined.sum() >= 2 else None
        dic = None if dd is None else int(np.flatnonzero(defined)[dd])
    rows = [{
        "label": d.label_names[k], "n_pos": int(np.count_nonzero(d.pos[k])), "prior": prior[k],
        "alpha": alpha[k], "alpha_share": share[k], "dictator": dic == k,
        "note": None if defined[k] else f"label {d.label_names[k]!r} has a single class: α is "
                                        "undefined and it takes no part in loss aggregation",
    } for k in range(K)]
    return rows, dic


def _estimates(d: _Data, tol: float, gauc_weighting: str) -> _Estimates:
    """Point estimates per scorer: pooled AUCs, the engine's per-query statistics and gAUCs
    (one sort per scorer for all labels), cross-pair win rates and near-tie rates (with DeLong
    variances without query ids), all label pairs from the same sort."""
    nan = np.full(d.K, np.nan)
    stats = {}
    if d.g is not None:
        stats = {s: grouped_stats(d.Y, d.S[s], d.g, sample_weight=d.w, ap=False,
                                  check_input=False) for s in d.score_names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return _Estimates(
            aucs={s: multilabel_auc(d.Y, d.S[s], sample_weight=d.w) for s in d.score_names},
            gaucs={s: stats[s].gauc(gauc_weighting) if stats else nan for s in d.score_names},
            stats=stats,
            wins={s: pair_stats(d.S[s], d.Y, d.w, d.pairs, tol=tol, delong=d.g is None)
                  for s in d.score_names})


def _bootstrap(d: _Data, est: _Estimates, n_boot: int, rng: np.random.Generator | None,
               progress: bool, gauc_weighting: str, weights=None) -> dict:
    """The same resampled units (queries, or rows) for every scorer, label and pair: per scorer
    the replicates of the AUCs (pooled, one sort reused), gAUCs and win rates. ``weights(b0,
    b1)``: the unit multiplicities (b1 − b0, U) of replicates b0..b1 instead of multinomial
    draws (the jackknife)."""
    from tqdm.auto import tqdm

    K, pairs = d.K, d.pairs
    boot = {s: {"auc": np.full((K, n_boot), np.nan), "gauc": np.full((K, n_boot), np.nan),
                "win": np.full((len(pairs) if d.g is not None else 0, n_boot), np.nan)}
            for s in d.score_names}
    kj = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    segs = {s: QuerySegments(d.S[s], check_input=False) for s in d.score_names}
    lam = {s: est.stats[s].query_weights(gauc_weighting) for s in est.stats}
    a_q = {s: np.where(st.defined, st.auc, 0.0) for s, st in est.stats.items()}
    chunk = max(1, min(n_boot, 4_000_000 // max(d.n, d.U)))
    bar = tqdm(total=n_boot, desc="bootstrap", disable=not progress, leave=False)
    for b0 in range(0, n_boot, chunk):
        b1 = min(n_boot, b0 + chunk)
        M = (rng.multinomial(d.U, np.full(d.U, 1.0 / d.U), size=b1 - b0).astype(np.float64)
             if weights is None else weights(b0, b1))
        for s in d.score_names:
            seg = segs[s]
            R = M[:, d.unit[seg.order]]
            boot[s]["auc"][:, b0:b1] = boot_label_aucs(seg, R, d.w, d.Y)
            if d.g is not None:
                with np.errstate(invalid="ignore", divide="ignore"):
                    boot[s]["gauc"][:, b0:b1] = ((M @ (lam[s] * a_q[s])) / (M @ lam[s])).T
                boot[s]["win"][:, b0:b1] = boot_pair_win_rates(seg, R, d.w, d.Y, kj[:, 0],
                                                               kj[:, 1])
        bar.update(b1 - b0)
    bar.close()
    return boot


def _auc_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> tuple[list[dict], dict]:
    """Per scorer × label: AUC and gAUC with intervals; the DeLong terms (no query ids)."""
    rows, delong, nan = [], {}, float("nan")
    for s in d.score_names:
        aucs, gaucs = est.aucs[s], est.gaucs[s]
        seg = QuerySegments(d.S[s], check_input=False) if d.qid is None else None
        for k, lab in enumerate(d.label_names):
            if d.qid is None:
                delong[s, k] = delong_terms(d.S[s], d.pos[k], d.neg[k], seg)[1:]
            se, lo, hi, why = ctx.interval(aucs[k], boot[s]["auc"][k], delong.get((s, k)),
                                           jack=ctx.jk(s, "auc", k))
            gse, glo, ghi, gwhy = ctx.interval(gaucs[k], boot[s]["gauc"][k],
                                               jack=ctx.jk(s, "gauc", k)) if d.qid else (
                nan, nan, nan, "no query ids (qid): gAUC undefined")
            if d.qid and not np.isfinite(gaucs[k]):
                gwhy = f"no query has both classes of {lab!r}: gAUC undefined"
            rows.append({
                "scorer": s, "label": lab, "auc": aucs[k], "auc_se": se, "auc_ci_low": lo,
                "auc_ci_high": hi, "auc_method": ctx.method, "gauc": gaucs[k], "gauc_se": gse,
                "gauc_ci_low": glo, "gauc_ci_high": ghi,
                "n_queries_defined": int(est.stats[s].defined[:, k].sum()) if d.qid else 0,
                "note": _join(None if np.isfinite(aucs[k]) else
                              f"label {lab!r} has a single class (with positive weight)",
                              why, gwhy)})
    return rows, delong


def _win_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer × label pair: the cross-pair win rate W_{k>j} with its interval (DeLong from
    the vectorised pair statistics, or the query bootstrap)."""
    rows, L = [], d.label_names
    for s in d.score_names:
        ps = est.wins[s]
        for i, (k, j) in enumerate(d.pairs):
            Wv = float(ps.win[i])
            if d.qid is None:
                se, lo, hi = ci_normal(Wv, float(ps.var[i]), ctx.level)
                why = ("a class has a single row: no DeLong variance"
                       if np.isfinite(Wv) and not np.isfinite(ps.var[i]) else None)
            else:
                se, lo, hi, why = ctx.interval(Wv, boot[s]["win"][i], jack=ctx.jk(s, "win", i))
            empty = L[k] if ps.n_k_only[i] == 0 else L[j]
            rows.append({"scorer": s, "label_k": L[k], "label_j": L[j],
                         "win_rate": Wv, "se": se, "ci_low": lo, "ci_high": hi,
                         "near_tie_rate": float(ps.near_tie[i]),
                         "n_k_only": int(ps.n_k_only[i]), "n_j_only": int(ps.n_j_only[i]),
                         "method": ctx.method,
                         "note": _join(None if np.isfinite(Wv) else
                                       f"no row is positive for {empty!r} only: W undefined",
                                       why)})
    return rows


def _summary_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer: Diff and Min AUC (percentile bootstrap over queries, or rows) and the
    dictatorship index."""
    rows, nan = [], float("nan")
    for s in d.score_names:
        aucs = est.aucs[s]
        ok = np.isfinite(aucs)
        row = {"scorer": s, "n_labels_defined": int(ok.sum()), "min_auc": nan,
               "min_auc_label": None, "min_ci_low": nan, "min_ci_high": nan, "diff_auc": nan,
               "diff_ci_low": nan, "diff_ci_high": nan}
        notes = [None if ok.all() else "labels with a single class are left out",
                 None if ok.any() else "no label has both classes"]
        if ok.any():
            reps, jk = boot[s]["auc"][ok], ctx.jk(s, "auc", ok)
            kmin = int(np.flatnonzero(ok)[np.argmin(aucs[ok])])
            row.update(min_auc=aucs[kmin], min_auc_label=d.label_names[kmin],
                       diff_auc=float(np.ptp(aucs[ok])))
            _, mlo, mhi, mwhy = ctx.interval(row["min_auc"], reps.min(axis=0),
                                             jack=None if jk is None else jk.min(axis=0))
            _, dlo, dhi, _ = ctx.interval(row["diff_auc"], np.ptp(reps, axis=0),
                                          jack=None if jk is None else np.ptp(jk, axis=0))
            row.update(min_ci_low=mlo, min_ci_high=mhi, diff_ci_low=dlo, diff_ci_high=dhi)
            notes += [mwhy] if ctx.no_boot else [
                mwhy, f"intervals: {_KIND[ctx.interval_kind]}, bootstrap over "
                + ("queries" if d.qid else "rows")]
            if not ctx.no_boot and not dlo <= row["diff_auc"] <= dhi:
                notes.append("Diff AUC (a max − min) is biased upward when the labels' AUCs are "
                             "close: its interval excludes the estimate; compare the labels' "
                             "AUC intervals instead")
        Wall = est.wins[s].win
        row["dictatorship_index"] = float(np.nanmax(np.abs(2 * Wall - 1))) if np.isfinite(
            Wall).any() else nan
        if not np.isfinite(row["dictatorship_index"]):
            notes.append("no cross-pair win rate is defined" if d.K > 1 else "one label: no "
                         "cross pairs")
        rows.append({**row, "note": _join(*notes)})
    return rows


def _per_query_table(d: _Data, est: _Estimates) -> list[dict]:
    """Per scorer × query × label: rows, positives and the query's AUC (the engine's)."""
    rows = []
    if d.qid is None:
        return rows
    n_q = np.bincount(d.g, minlength=d.G)
    for s in d.score_names:
        for k, lab in enumerate(d.label_names):
            npos = np.bincount(d.g, d.Y[:, k] * (d.w > 0), minlength=d.G).astype(int)
            rows += [{"scorer": s, "qid": plain(d.qvalues[q]), "label": lab,
                      "n": int(n_q[q]), "n_pos": int(npos[q]), "auc": a_q,
                      "note": None if np.isfinite(a_q) else
                      f"query has no {'positive' if npos[q] == 0 else 'negative'} for {lab!r}"}
                     for q, a_q in enumerate(est.stats[s].auc[:, k])]
    return rows


def _paired_table(d: _Data, est: _Estimates, boot: dict, delong: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer pair × label × metric: the difference a − b with DeLong's paired test
    (pooled rows) or the paired query bootstrap."""
    rows = []
    for ia, sa in enumerate(d.score_names):
        for sb, k, metric in itertools.product(d.score_names[ia + 1:], range(d.K),
                                               ["auc", "gauc"] if d.qid else ["auc"]):
            vals = est.aucs if metric == "auc" else est.gaucs
            va, vb = vals[sa][k], vals[sb][k]
            row = {"scorer_a": sa, "scorer_b": sb, "label": d.label_names[k], "metric": metric,
                   "value_a": va, "value_b": vb, "diff": va - vb}
            why = None if np.isfinite(va - vb) else f"{metric} of {d.label_names[k]!r} undefined"
            if d.qid is None:
                row.update(paired_delong(delong[sa, k], delong[sb, k], va - vb, ctx.level),
                           method="DeLong paired")
                if np.isfinite(va - vb) and not np.isfinite(row["se"]):
                    why = "a class has a single row: no DeLong variance"
            else:
                reps = boot[sa][metric][k] - boot[sb][metric][k]
                ja, jb = ctx.jk(sa, metric, k), ctx.jk(sb, metric, k)
                se, lo, hi, bwhy = ctx.interval(va - vb, reps, lo=-1.0,
                                                jack=None if ja is None else ja - jb)
                row.update(paired_z(va - vb, se ** 2, ctx.level), ci_low=lo, ci_high=hi,
                           method=f"paired bootstrap over {d.G} queries (B={ctx.n_boot}), "
                                  f"{_KIND[ctx.interval_kind]}; "
                                  + ("t test" if ctx.interval_kind == "t" else "z test"))
                if ctx.interval_kind == "t":  # the p-value that matches the t interval
                    row["p_value"] = t_p_value(row["z"], ctx.U - 1)
                why = _join(why, bwhy)
            rows.append({**row, "note": why})
    for metric in ("auc", "gauc"):  # one family per metric: every scorer pair × label
        idx = [i for i, r in enumerate(rows) if r["metric"] == metric]
        for i, p in zip(idx, holm([rows[i]["p_value"] for i in idx]), strict=True):
            rows[i]["p_holm"] = p
    return rows


def _frames(label_rows, auc_rows, win_rows, summary_rows, pq_rows, paired_rows, dic_rows
            ) -> dict[str, pd.DataFrame]:
    import pandas as pd

    return {
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
            "ci_low", "ci_high", "z", "p_value", "p_holm", "method", "note"]),
        "dictatorship": pd.DataFrame(dic_rows, columns=DICTATORSHIP_COLUMNS),
    }
