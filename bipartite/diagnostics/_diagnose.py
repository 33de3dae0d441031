"""The diagnosis (:func:`diagnose`), a report layer over the grouped-AUC engine
(:class:`bipartite.metrics.QuerySegments`, :func:`bipartite.metrics.grouped_stats`), in named
steps: read and check the table (:func:`_read`), the label table (:func:`_label_table`), the point
estimates and the per-unit placement sums (:func:`_estimates`, :mod:`bipartite.diagnostics._stats`),
the bootstrap from those sums (:func:`_bootstrap`, only with ``n_boot > 0``; the jackknife for
BCa, :func:`_jackknife`), then one function per output table. Every interval is made in one
place, :meth:`_Ctx.interval` (a standard error, analytic or from bootstrap replicates, or the
replicates themselves, turned into an interval by the method ``interval`` names:
:func:`bipartite.diagnostics._intervals.interval`) and :meth:`_Ctx.summary_interval` (Min and
Diff AUC). docs/theory.md §2.6 gives the variances, docs/coverage.md
their measured coverage."""

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
    check_option,
    check_positive,
    check_random_state,
    pow2_normalise,
)
from bipartite.diagnostics._dask_report import (
    NEAR_TIE_NOTE,
    OUT_OF_CORE_NOTE,
    OutOfCoreSums,
    is_out_of_core,
    out_of_core_sums,
    rows_of,
)
from bipartite.diagnostics._dictator import DICTATORSHIP_COLUMNS, dictatorship_rows
from bipartite.diagnostics._inference import (
    boot_var,
    check_level,
    holm,
    min_diff_delta,
    paired_z,
)
from bipartite.diagnostics._intervals import (
    COVERAGE_TARGET,
    check_interval,
    configuration,
    queries_needed,
    t_p_value,
)
from bipartite.diagnostics._intervals import interval as make_interval
from bipartite.diagnostics._pairs import PairStats, pair_blocks, pair_stats, pair_sums
from bipartite.diagnostics._progress import Progress
from bipartite.diagnostics._report import Diagnostics
from bipartite.diagnostics._scan import fused, kept, masses, pair_result, query_order, scorer_stats
from bipartite.diagnostics._stats import PlacementSums, label_sums, query_notes
from bipartite.diagnostics._tables import as_names, column, frame, plain, query_ids
from bipartite.dictatorship import (
    dictator,
    effective_weight_shares,
    effective_weights,
)
from bipartite.metrics import GAUC_WEIGHTINGS, GroupedStats, QuerySegments

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

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


def _join(*notes: str | None) -> str | None:
    return "; ".join(dict.fromkeys(n for n in notes if n)) or None  # each reason once


def _boot_note(bad: float, n_boot: int) -> str | None:
    return (f"{100 * bad:.1f}% of the {n_boot} bootstrap replicates were undefined and left out"
            if n_boot and bad > 0 else None)


@dataclass
class _Data:
    """The checked table: scores ``S`` (name → (n,)), labels ``Y`` (n, K), row weights ``w``,
    query codes ``g`` (G queries, ids ``qvalues``) or None, the number U of independent units
    (queries, or rows) and the label pairs (k < j; their cross-pair masses are built in blocks,
    :func:`bipartite.diagnostics._pairs.cross_masks`)."""

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
    U: int
    pairs: list[tuple[int, int]]
    #: out of core (no row arrays: ``S``, ``Y``, ``w``, ``g`` empty): the rows, and the rows with
    #: positive weight per query and label (G, K)
    n_rows: int | None = None
    q_npos: np.ndarray | None = None
    prior: np.ndarray | None = None  # out of core: each label's positive weight share

    @property
    def n(self) -> int:
        return len(self.w) if self.n_rows is None else self.n_rows

    @property
    def K(self) -> int:
        return len(self.label_names)


@dataclass
class _Estimates:
    """Per scorer: pooled AUCs and gAUCs (K,), the per-query statistics, the pair statistics
    (win rates, near ties, variances), the labels' placement sums (the bootstrap's input), the
    scaled influence terms (K, U) of the AUCs and gAUCs (``var = Σ t²``, ``cov = Σ t t'``) and
    the global sort (the bootstrap's pair blocks reuse it)."""

    aucs: dict[str, np.ndarray]
    gaucs: dict[str, np.ndarray]
    stats: dict[str, GroupedStats]
    wins: dict[str, PairStats]
    sums: dict[str, PlacementSums]
    terms: dict[str, dict[str, np.ndarray]]
    segs: dict[str, QuerySegments]
    #: per scorer the cross pairs' sums in blocks ``[(slice, PlacementSums)]`` (out of core,
    #: with their within-query sums; one walk: without), read by the bootstrap and the jackknife
    pair_sums: dict[str, list] = field(default_factory=dict)


def _kind(kind: str, clustered: bool) -> str:
    """How an interval method reads in the report's method columns."""
    return {"wald": "est ± z·se", "t": f"est ± t({'G' if clustered else 'n'}−1)·se",
            "percentile": "percentile", "bca": "BCa (jackknife acceleration)"}[kind]


@dataclass
class _Ctx:
    """What every interval needs: the level, the units U (queries or rows), the bootstrap size,
    why there is no bootstrap interval (``no_boot``), why an analytic variance can be missing
    (``no_var``), the method's name, whether the units are queries, the interval method
    ``kind`` (resolved: wald, t, percentile, bca) and BCa's jackknife values ``jack``
    (scorer → metric → (rows, U)). ``boot``: whether the intervals come from the bootstrap
    (``n_boot > 0``: every interval, over queries or rows), else analytic (DeLong, clustered by
    query with query ids; the delta method for the gAUC, Min and Diff AUC)."""

    level: float
    U: int
    n_boot: int
    no_boot: str | None
    no_var: str
    method: str
    clustered: bool
    kind: str = "wald"
    jack: dict = field(default_factory=dict)

    @property
    def boot(self) -> bool:
        """Bootstrap intervals (every table's)."""
        return self.n_boot > 0

    def jk(self, s: str, metric: str, i) -> np.ndarray | None:
        """The jackknife values of scorer ``s``'s ``metric`` row(s) ``i`` (BCa only)."""
        return self.jack[s][metric][i] if self.jack else None

    def interval(self, est, var=None, reps=None, lo=0.0, jack=None, df=None):
        """(se, low, high, note) of ``est`` by the method :attr:`kind`
        (:func:`bipartite.diagnostics._intervals.interval`): se from the bootstrap replicates
        ``reps`` (:attr:`boot`; percentile and BCa read them, BCa with the jackknife values
        ``jack``), else from the analytic variance ``var``; the t quantile with ``df`` degrees
        of freedom (default U − 1); clipped to [lo, 1] (Wald, t)."""
        nan = float("nan")
        df = self.U - 1 if df is None else df
        if df < 1 and np.isfinite(est):  # one cluster: no variance, whatever the method
            unit = "query" if self.clustered else "row"
            return nan, nan, nan, (f"defined in a single {unit}: no variance, no interval "
                                   "(docs/theory.md §2.6)")
        if self.boot:
            if self.no_boot:
                return nan, nan, nan, self.no_boot
            var, bad = boot_var(reps, self.U)
            note = _boot_note(bad, self.n_boot) if np.isfinite(est) else None
        else:
            note = self.no_var if np.isfinite(est) and not np.isfinite(var) else None
        se = float(np.sqrt(max(var, 0.0))) if np.isfinite(var) and np.isfinite(est) else nan
        low, high = make_interval(self.kind, est, se, df, self.level, reps, jack, lo)
        return se, low, high, note

    def summary_interval(self, aucs, terms, reps, jack=None):
        """Min and Diff AUC of the defined labels' AUCs ``aucs`` (k,): ``(min_lo, min_hi,
        diff_lo, diff_hi, notes)``; from the bootstrap replicates ``reps`` (k, B) with
        ``n_boot > 0`` (the jackknife ``jack`` (k, U) for BCa), else the delta method from the
        terms (k, U) (:func:`bipartite.diagnostics._inference.min_diff_delta`, which says what
        is done at ties; docs/theory.md §2.6)."""
        unit = "queries" if self.clustered else "rows"
        kind = _kind(self.kind, self.clustered)
        mn, dd = float(aucs.min()), float(np.ptp(aucs))
        if self.boot:
            _, mlo, mhi, mwhy = self.interval(mn, reps=reps.min(axis=0),
                                              jack=None if jack is None else jack.min(axis=0))
            _, dlo, dhi, _ = self.interval(dd, reps=np.ptp(reps, axis=0),
                                           jack=None if jack is None else np.ptp(jack, axis=0))
            notes = [mwhy] if self.no_boot else [mwhy, f"intervals: {kind}, bootstrap over {unit}"]
        else:
            mvar, dvar, tie = min_diff_delta(aucs, terms)
            _, mlo, mhi, _ = self.interval(mn, var=mvar)
            _, dlo, dhi, _ = self.interval(dd, var=dvar)
            delong = "DeLong clustered by query" if self.clustered else "DeLong"
            notes = [tie, f"intervals: delta method ({delong} covariances), {kind}"]
            if not np.isfinite(mvar):
                notes.append(self.no_var)
        return mlo, mhi, dlo, dhi, notes


def diagnose(
    data: pd.DataFrame | Mapping[str, ArrayLike] | str | os.PathLike,
    scores: str | Sequence[str],
    labels: str | Sequence[str],
    *,
    qid: str | None = None,
    weight: str | None = None,
    seed: int | np.random.Generator = 0,
    n_boot: int = 0,
    level: float = 0.95,
    tol: float = 1e-6,
    gauc_weighting: str = "pairs",
    progress: bool = False,
    positive_label: str | int | float | bool | None = None,
    dropna: bool = False,
    interval: str = "auto",
    scheduler: str | Client | None = None,
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
    qid : column name of the query ids, optional. With it the intervals are clustered by
        query (queries are the independent units) and gAUCs and per-query AUCs are reported;
        without it every row is independent (gAUC undefined).
    weight : column name of non-negative row weights, optional (a pair weighs ``w_i w_j``)
    seed : int, None or numpy Generator — the bootstrap's resampling
    n_boot : int, 0 or ≥ 2 — 0 (default): analytic standard errors, DeLong's variance for the
        AUCs, win rates and paired differences (clustered by query with ``qid``: ``G'/(G' − 1)
        Σ_q ψ_q²`` of the per-query influence ψ), the delta method for the gAUC (a ratio over
        queries) and for Min and Diff AUC (from the labels' DeLong covariances; at an exact tie
        of the smallest or largest AUCs see
        :func:`bipartite.diagnostics._inference.min_diff_delta`); docs/theory.md §2.6. B > 0:
        B bootstrap replicates from the per-unit placement sums
        (:mod:`bipartite.diagnostics._stats`: O(queries) per replicate, or O(n) without
        ``qid``) give every interval, over queries (or rows): gAUC replicates exact, pooled
        AUCs and win rates by their linearisation (0.5.0's default was B = 1000).
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
    progress : bool — a tqdm progress bar, with a time estimate first, over the reading, the
        sorts and the bootstrap (on stderr)
    positive_label : str, number or bool, optional — the value of the label columns that
        means positive (``"yes"``, ``"click"``, ``True``...); each label column must then hold
        at most two distinct values (a numeric 0/1 column is read as it is when the value is
        not a number). Default: the labels must be 0/1 (or booleans)
    dropna : bool — drop the rows with a missing value in any column used (their number is
        ``meta["n_dropped"]``); default False: a missing value is an error naming its row
    interval : {"auto", "wald", "t", "percentile", "bca"} — how every interval of the report
        is made (docs/coverage.md): ``"wald"`` ``est ± z se`` and ``"t"`` ``est ± t_{G−1} se``
        (G the queries; without ``qid`` the rows; for a gAUC the queries where it is defined)
        on the analytic (``n_boot=0``) or the bootstrap standard error; ``"percentile"`` and
        ``"bca"`` (bias-corrected and accelerated, the acceleration from the exact
        leave-one-query-out jackknife, or leave-one-row-out without ``qid``) read the bootstrap
        replicates and need ``n_boot > 0`` (else a ``ValueError``). ``"auto"`` (default) is the
        method whose simulated coverage came closest to nominal in the chosen configuration
        (:data:`bipartite.diagnostics._intervals.AUTO_INTERVAL`). With query ids and fewer
        queries than the chosen method and configuration need to cover at least 93% at every
        simulated size from there on (:func:`bipartite.diagnostics._intervals.min_queries`), a
        ``UserWarning`` is issued and the report carries the same note
        (``meta["interval_warning"]``)
    scheduler : None, a ``distributed.Client`` or a scheduler address — **out of core**: with a
        Parquet folder, glob or list of files, or a dask DataFrame, as ``data`` (or any
        ``scheduler``), the per-query placement sums are computed exactly on dask
        (:func:`bipartite.diagnostics.placement_stats`; None: dask's current scheduler, a
        ``distributed.Client`` or the address of a running one) and every table is built from
        them by the same steps; needs ``qid``; the near-tie rates are not computed (NaN, with a
        note); ``positive_label`` and ``dropna`` are in-memory only; ``progress`` shows a bar
        per pass (docs/out_of_core.md)

    Returns
    -------
    Diagnostics — ``.tables`` (DataFrames), ``.to_markdown()``, ``.to_json()``, ``.figure()``,
    ``.save(directory)``.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.integers(0, 2, size=(400, 2))
    >>> d = diagnose({"model": Y @ [1.0, 0.5] + rng.normal(size=400), "rel": Y[:, 0],
    ...               "click": Y[:, 1]}, scores="model", labels=["rel", "click"])
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
    kind = check_interval(interval, n_boot)
    tol = check_positive(tol, "tol", allow_zero=True)
    level = check_level(level)
    check_option(gauc_weighting, "gauc_weighting", GAUC_WEIGHTINGS)
    rng = check_random_state(seed)
    if not isinstance(dropna, bool | np.bool_):
        raise ValueError(f"The 'dropna' parameter must be True or False, got {dropna!r}.")
    bar = Progress(progress)
    if scheduler is not None or is_out_of_core(data):  # docs/out_of_core.md
        src = out_of_core_sums(data, score_names, label_names, qid=qid, weight=weight,
                               scheduler=scheduler, positive_label=positive_label,
                               dropna=bool(dropna), progress=bool(progress))
        d, est = _out_of_core(src, gauc_weighting)
    else:
        with bar.reading(data):
            d = _read(data, score_names, label_names, qid, weight, positive_label, bool(dropna))
        bar.plan(d.n, len(score_names), d.K, qid is not None, n_boot, d.U)
        est = _estimates(d, tol, gauc_weighting, bar)
    label_rows, dic = _label_table(d)
    boot = _bootstrap(d, est, n_boot, rng, bar, gauc_weighting)
    no_boot = ("a single query: the bootstrap over queries gives no interval"
               if n_boot and d.U < 2 else None)
    no_var = ("a single query: no variance clustered by query" if qid is not None else
              "a class has a single row: no DeLong variance")
    how = _kind(kind, qid is not None)
    if n_boot:
        method = (f"bootstrap over {d.G} queries" if qid is not None else
                  f"bootstrap over {d.n} rows") + f" (B={n_boot}), {how}"
    elif qid is None:
        method = f"DeLong, {how}"
    else:
        method = f"DeLong clustered by query ({d.G} queries; gAUC: delta method), {how}"
    jack = _jackknife(d, est, gauc_weighting) if kind == "bca" and n_boot and d.U > 1 else {}
    ctx = _Ctx(level, d.U, n_boot, no_boot, no_var, method, qid is not None, kind, jack)
    few = _few_queries_warning(d, kind, n_boot)
    auc_rows = _auc_table(d, est, boot, ctx)
    win_rows = _win_table(d, est, boot, ctx)
    tables = _frames(label_rows, auc_rows, win_rows, _summary_table(d, est, boot, ctx),
                     _per_query_table(d, est), _paired_table(d, est, boot, ctx),
                     dictatorship_rows(label_rows, win_rows, score_names))
    bar.close()
    n_defined = sum(1 for r in label_rows if np.isfinite(r["alpha"]))
    meta = {"source": d.where, "n_rows": d.n, "n_dropped": d.n_dropped,
            "n_queries": d.G if qid is not None else None,
            "scores": score_names, "labels": label_names, "qid": qid, "weight": weight,
            "positive_label": positive_label,
            "level": level, "n_boot": n_boot, "seed": seed if isinstance(seed, int) else None,
            "interval_method": method + ("" if n_boot else "; Min/Diff AUC: delta method"),
            "interval": kind, "interval_warning": few,
            "gauc_weighting": gauc_weighting,
            "gauc_definition": GAUC_DEFINITIONS[gauc_weighting] if qid is not None else None,
            "multiple_testing": HOLM, "near_tie_tol": tol,
            "dictator": None if dic is None else label_names[dic],
            "n_labels_defined": n_defined}
    if d.n_rows is not None:
        meta["out_of_core"] = OUT_OF_CORE_NOTE
    return Diagnostics(tables=tables, meta=meta)


def _few_queries_warning(d: _Data, kind: str, n_boot: int) -> str | None:
    """A ``UserWarning`` (and its text, for the report) when there are fewer queries than the
    simulated size from which on ``kind`` in this configuration (analytic or bootstrap) covers
    :data:`COVERAGE_TARGET` (docs/coverage.md)."""
    if d.qid is None or d.G < 2:
        return None
    need = queries_needed(kind, d.G, n_boot)
    if need is None:
        return None
    at = (f"fewer than the {need:g} from which on" if np.isfinite(need) else
          "and at no simulated number of queries (5 to 200) did")
    text = (f"only {d.G} queries, {at} the {configuration(n_boot)} {kind!r} intervals cover "
            f"{COVERAGE_TARGET:.0%} of the time in simulation at a nominal 95% "
            "(docs/coverage.md): the intervals are likely too narrow")
    warnings.warn(text[0].upper() + text[1:] + ".", UserWarning, stacklevel=3)
    return text


def _check_n_boot(n_boot: Any, n_scores: int, K: int) -> int:
    """``n_boot``: 0 or from 2 to :data:`MAX_N_BOOT`, its replicates within
    :data:`MAX_BOOT_BYTES`."""
    n_boot = check_positive(n_boot, "n_boot", integer=True, allow_zero=True)
    if n_boot == 1:  # one replicate has no spread: every interval would be NaN
        raise ValueError("The 'n_boot' parameter (--n-boot) must be 0 (analytic intervals) or at "
                         "least 2 (a bootstrap needs two replicates for a spread), got 1.")
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
    if qid is not None:  # the metrics' query-id check (bipartite._utils.validation)
        g, G, qvalues = query_ids(df, qid, source)
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    return _Data(
        where=where, n_dropped=n_dropped, score_names=score_names, label_names=label_names,
        S=S, Y=Y, w=w, qid=qid, g=g, G=G, qvalues=qvalues, U=G if qid is not None else n,
        pairs=pairs)


def _label_table(d: _Data) -> tuple[list[dict], int | None]:
    """Labels: priors, effective weights, the dictator (loss aggregation, a = 1)."""
    K = d.K
    if d.n_rows is None:
        prior = (d.w @ d.Y) / d.w.sum()  # each label's positive weight share
        n_pos = [int(np.count_nonzero((d.w > 0) & (d.Y[:, k] > 0))) for k in range(K)]
    else:  # out of core: from the per-query sums
        prior, n_pos = d.prior, [int(c) for c in d.q_npos.sum(axis=0)]
    defined = (prior > 0) & (prior < 1)
    alpha, share = np.full(K, np.nan), np.full(K, np.nan)
    dic = None
    if defined.any():
        alpha[defined] = effective_weights(prior[defined])
        share[defined] = effective_weight_shares(prior[defined])
        dd = dictator(prior[defined]) if defined.sum() >= 2 else None
        dic = None if dd is None else int(np.flatnonzero(defined)[dd])
    rows = [{
        "label": d.label_names[k], "n_pos": n_pos[k], "prior": prior[k],
        "alpha": alpha[k], "alpha_share": share[k], "dictator": dic == k,
        "note": None if defined[k] else f"label {d.label_names[k]!r} has a single class: α is "
                                        "undefined and it takes no part in loss aggregation",
    } for k in range(K)]
    return rows, dic


def _estimates(d: _Data, tol: float, gauc_weighting: str, bar: Progress) -> _Estimates:
    """Point estimates per scorer from its global sort and its (query, score) order with query
    ids, and the placement sums of the labels (:func:`bipartite.diagnostics._stats.
    placement_sums`): pooled AUCs, per-query AUCs and gAUCs, the analytic variances' influence
    terms; the cross-pair win rates and near-tie rates (with their variances) on the same
    global sort. Up to :data:`bipartite.diagnostics._scan.FUSED_ROWS` label and pair rows, the
    per-query order comes from the global one by a radix sort of the query codes
    (:func:`bipartite.diagnostics._scan.query_order`) and each order is walked once for all of
    them (:func:`bipartite.diagnostics._scan.scorer_stats`); wider label sets take the
    whole-array route (a second sort, ``label_sums``, ``pair_stats`` blocked by pairs)."""
    ws = pow2_normalise(d.w)  # exact; 1e-170 weights must not underflow in P N
    out = _Estimates({}, {}, {}, {}, {}, {}, {})
    one_walk = fused(d.K)
    if one_walk:
        Yt = np.ascontiguousarray(d.Y.astype(bool).T)  # (K, n), 1 byte a label
        kj = np.asarray(d.pairs, dtype=np.int64).reshape(-1, 2)
        ms = masses(Yt, ws, kj, d.g, d.G or None)
        weight = np.bincount(d.g, ws, minlength=d.G) if d.g is not None else ws
        n_rows = (np.bincount(d.g, minlength=d.G) if d.g is not None else
                  np.ones(d.n, dtype=np.int64))
    for s in d.score_names:
        with bar.step(f"sorting {s!r}", "sort"):
            seg = out.segs[s] = QuerySegments(d.S[s], check_input=False)
            qseg = None
            if d.g is not None:  # the per-query order: from the global one, or a second sort
                qseg = (query_order(seg.order, d.g, d.G) if one_walk else
                        QuerySegments(d.S[s], d.g, check_input=False))
        with bar.step(f"placements {s!r}", "placements"):
            if one_walk:
                st, ps, near = scorer_stats(d.S[s], seg, qseg, Yt, ms, d.g, d.G or None,
                                            weight, n_rows, tol)
            else:
                st = label_sums(d.S[s], d.Y, ws, codes=d.g, G=d.G or None, seg=seg, qseg=qseg)
            _point_estimates(out, s, st, gauc_weighting)
        with bar.step(f"win rates {s!r}", "pairs"):
            if one_walk:
                out.wins[s] = pair_result(ps, near, len(d.pairs))
                keep = ps is not None and kept(ps.m, d.U, len(d.score_names))
                out.pair_sums[s] = [(slice(0, ps.m), ps)] if keep else []
            else:
                out.wins[s] = pair_stats(d.S[s], d.Y, d.w, d.pairs, tol=tol, delong=True,
                                         seg=seg, codes=d.g, G=d.G or None)
        del qseg
    return out


def _point_estimates(out: _Estimates, s: str, st: PlacementSums, gauc_weighting: str) -> None:
    """Scorer ``s``'s pooled AUCs, DeLong terms and (units: queries) gAUCs from the labels'
    placement sums ``st``."""
    out.sums[s] = st
    out.aucs[s] = st.auc()
    out.terms[s] = {"auc": st.terms()}
    if st.clustered:
        out.stats[s] = st.grouped()
        out.gaucs[s] = out.stats[s].gauc(gauc_weighting)
        out.terms[s]["gauc"] = st.gauc_terms(gauc_weighting)
    else:
        out.gaucs[s] = np.full(st.m, np.nan)


def _out_of_core(src: OutOfCoreSums, gauc_weighting: str) -> tuple[_Data, _Estimates]:
    """The checked table and the estimates from the out-of-core per-query sums (no row arrays):
    every scorer's labels (the first K pairs) and cross pairs (the rest: the win rates, their
    DeLong variances, bootstrap and jackknife; near-tie rates not computed, NaN)."""
    K, names = len(src.label_names), src.label_names
    first = next(iter(src.sums.values()))
    P, N = first.pos[:K].sum(axis=1), first.neg[:K].sum(axis=1)
    d = _Data(where=src.where, n_dropped=0, score_names=src.score_names, label_names=names,
              S={}, Y=np.zeros((0, K)), w=np.zeros(0), qid=src.qid, g=None, G=src.G,
              qvalues=src.qvalues, U=src.G,
              pairs=[(k, j) for k in range(K) for j in range(k + 1, K)], n_rows=src.n_rows,
              q_npos=src.q_npos, prior=P / (P + N))
    est = _Estimates({}, {}, {}, {}, {}, {}, {})
    for s, st in src.sums.items():
        _point_estimates(est, s, rows_of(st, slice(0, K)), gauc_weighting)
        cross = rows_of(st, slice(K, st.m))
        nan = np.full(cross.m, np.nan)
        est.wins[s] = PairStats(win=cross.auc(), var=cross.var(), near_tie=nan,
                                n_k_only=cross.n_pos.astype(np.int64),
                                n_j_only=cross.n_neg.astype(np.int64))
        est.pair_sums[s] = [(slice(0, cross.m), cross)]
    return d, est


def _bootstrap(d: _Data, est: _Estimates, n_boot: int, rng: np.random.Generator,
               bar: Progress, gauc_weighting: str) -> dict:
    """The same resampled units (queries, or rows) for every scorer, label and pair: per scorer
    the replicates of the pooled AUCs (linearised), gAUCs (exact) and win rates (linearised),
    all from the placement sums (:mod:`bipartite.diagnostics._stats`): O(units) per replicate.
    The pairs' sums: the one walk's, else built once when they fit (``kept``), else per chunk."""
    K, pairs = d.K, d.pairs
    boot = {s: {"auc": np.full((K, n_boot), np.nan), "gauc": np.full((K, n_boot), np.nan),
                "win": np.full((len(pairs), n_boot), np.nan)}
            for s in d.score_names}
    if n_boot == 0:
        return boot
    kj = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    ws = pow2_normalise(d.w)
    codes, G = d.g, d.G or None

    def pair_tables(s):
        return [(sl, pair_sums(d.S[s], d.Y, ws, kj[sl], codes=codes, G=G, seg=est.segs[s]))
                for sl in pair_blocks(len(kj), d.n)]

    cache = est.pair_sums or ({s: pair_tables(s) for s in d.score_names}
                              if kept(len(kj), d.U, len(d.score_names)) else {})
    chunk = max(1, min(n_boot, 4_000_000 // max(d.U * max(K, 1), 1)))
    with bar.step("bootstrap", "bootstrap", total=n_boot) as tick:
        for b0 in range(0, n_boot, chunk):
            b1 = min(n_boot, b0 + chunk)
            M = rng.multinomial(d.U, np.full(d.U, 1.0 / d.U), size=b1 - b0).astype(np.float64)
            for s in d.score_names:
                st = est.sums[s]
                boot[s]["auc"][:, b0:b1] = st.boot_auc(M)
                if st.clustered:
                    boot[s]["gauc"][:, b0:b1] = st.boot_gauc(M, gauc_weighting)
                for sl, ps in cache.get(s) or pair_tables(s):
                    boot[s]["win"][sl, b0:b1] = ps.boot_auc(M)
            tick(b1 - b0)
    return boot


def _jackknife(d: _Data, est: _Estimates, gauc_weighting: str) -> dict:
    """Exact leave-one-unit-out values (each query left out in turn, or each row without query
    ids) of the AUCs, gAUCs and win rates, for BCa's acceleration, from the placement sums
    (:meth:`bipartite.diagnostics._stats.PlacementSums.jackknife_auc` and ``jackknife_gauc``):
    O(units) per statistic, never a units × units table. The win rates' sums are built again
    with their within-query sums (one more sort per query)."""
    kj = np.asarray(d.pairs, dtype=np.int64).reshape(-1, 2)
    ws = pow2_normalise(d.w)
    out = {}
    for s in d.score_names:
        st = est.sums[s]
        win = np.full((len(kj), d.U), np.nan)
        have = [(sl, ps) for sl, ps in est.pair_sums.get(s, [])
                if ps.within is not None or not ps.clustered]  # the one walk's lack 'within'
        for sl, ps in have:
            win[sl] = ps.jackknife_auc()
        for sl in pair_blocks(len(kj), d.n) if not have else []:
            win[sl] = pair_sums(d.S[s], d.Y, ws, kj[sl], codes=d.g, G=d.G or None,
                                seg=est.segs[s], within=True).jackknife_auc()
        out[s] = {"auc": st.jackknife_auc(), "win": win,
                  "gauc": st.jackknife_gauc(gauc_weighting) if st.clustered else None}
    return out


def _gauc_df(est: _Estimates, s: str, k: int) -> int:
    """Degrees of freedom of a gAUC's t interval: the queries where label k's AUC is defined
    (the clusters of the ratio), less one."""
    return int(est.stats[s].defined[:, k].sum()) - 1


def _var(t: np.ndarray) -> np.ndarray:
    """Variances ``Σ_u t²`` of scaled influence terms (k, U) (NaN rows stay NaN)."""
    return np.einsum("ku,ku->k", t, t)


def _auc_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer × label: AUC and gAUC with intervals."""
    rows, nan = [], float("nan")
    for s in d.score_names:
        aucs, gaucs = est.aucs[s], est.gaucs[s]
        var = _var(est.terms[s]["auc"])
        gvar = _var(est.terms[s]["gauc"]) if d.qid else np.full(d.K, np.nan)
        for k, lab in enumerate(d.label_names):
            se, lo, hi, why = ctx.interval(aucs[k], var[k], boot[s]["auc"][k],
                                           jack=ctx.jk(s, "auc", k))
            gse, glo, ghi, gwhy = ctx.interval(
                gaucs[k], gvar[k], boot[s]["gauc"][k], jack=ctx.jk(s, "gauc", k),
                df=_gauc_df(est, s, k)) if d.qid else (
                nan, nan, nan, "no query ids (qid): gAUC undefined")
            if d.qid and not np.isfinite(gaucs[k]):
                gwhy = (f"a query's AUC of {lab!r} underflows in float64 (weights too light): "
                        "gAUC undefined" if est.stats[s].defined[:, k].any() else
                        f"no query has both classes of {lab!r}: gAUC undefined")
            rows.append({
                "scorer": s, "label": lab, "auc": aucs[k], "auc_se": se, "auc_ci_low": lo,
                "auc_ci_high": hi, "auc_method": ctx.method, "gauc": gaucs[k], "gauc_se": gse,
                "gauc_ci_low": glo, "gauc_ci_high": ghi,
                "n_queries_defined": int(est.stats[s].defined[:, k].sum()) if d.qid else 0,
                "note": _join(None if np.isfinite(aucs[k]) else
                              f"label {lab!r} has a single class (with positive weight)",
                              why, gwhy)})
    return rows


def _win_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer × label pair: the cross-pair win rate W_{k>j} with its interval (DeLong from
    the pair statistics, clustered by query with query ids, or the query bootstrap)."""
    rows, L = [], d.label_names
    for s in d.score_names:
        ps = est.wins[s]
        for i, (k, j) in enumerate(d.pairs):
            Wv = float(ps.win[i])
            se, lo, hi, why = ctx.interval(Wv, float(ps.var[i]), boot[s]["win"][i],
                                           jack=ctx.jk(s, "win", i))
            empty = L[k] if ps.n_k_only[i] == 0 else L[j]
            rows.append({"scorer": s, "label_k": L[k], "label_j": L[j],
                         "win_rate": Wv, "se": se, "ci_low": lo, "ci_high": hi,
                         "near_tie_rate": float(ps.near_tie[i]),
                         "n_k_only": int(ps.n_k_only[i]), "n_j_only": int(ps.n_j_only[i]),
                         "method": ctx.method,
                         "note": _join(None if np.isfinite(Wv) else
                                       f"no row is positive for {empty!r} only: W undefined",
                                       why, NEAR_TIE_NOTE if np.isfinite(Wv) and not
                                       np.isfinite(ps.near_tie[i]) else None)})
    return rows


def _summary_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer: Diff and Min AUC with intervals (:meth:`_Ctx.summary_interval`) and the
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
            mlo, mhi, dlo, dhi, more = ctx.summary_interval(aucs[ok], est.terms[s]["auc"][ok],
                                                            boot[s]["auc"][ok],
                                                            ctx.jk(s, "auc", ok))
            kmin = int(np.flatnonzero(ok)[np.argmin(aucs[ok])])
            row.update(min_auc=aucs[kmin], min_auc_label=d.label_names[kmin], min_ci_low=mlo,
                       min_ci_high=mhi, diff_auc=float(np.ptp(aucs[ok])), diff_ci_low=dlo,
                       diff_ci_high=dhi)
            notes += more
            if ctx.boot and not ctx.no_boot and not dlo <= row["diff_auc"] <= dhi:
                notes.append("Diff AUC (a max − min) is biased upward when the labels' AUCs are "
                             "close: its interval excludes the estimate; compare the labels' "
                             "AUC intervals instead")
            elif not ctx.boot and ok.sum() > 1 and dlo <= 0:
                notes.append("Diff AUC (a max − min) is biased upward when the labels' AUCs are "
                             "close, and its interval reaches 0: compare the labels' AUC "
                             "intervals instead")
        Wall = est.wins[s].win
        row["dictatorship_index"] = float(np.nanmax(np.abs(2 * Wall - 1))) if np.isfinite(
            Wall).any() else nan
        if not np.isfinite(row["dictatorship_index"]):
            notes.append("no cross-pair win rate is defined" if d.K > 1 else "one label: no "
                         "cross pairs")
        rows.append({**row, "note": _join(*notes)})
    return rows


def _per_query_table(d: _Data, est: _Estimates) -> pd.DataFrame:
    """Per scorer × query × label: rows, positives and the query's AUC (the engine's), built
    column-wise (10⁵ queries and more)."""
    import pandas as pd

    cols = ["scorer", "qid", "label", "n", "n_pos", "auc", "note"]
    if d.qid is None:
        return pd.DataFrame(columns=cols)
    qv = [plain(v) for v in d.qvalues]
    has = d.w > 0
    npos_k, nneg_k = ([[np.bincount(d.g, (y if c else 1 - y) * has, minlength=d.G).astype(int)
                        for y in d.Y.T] for c in (1, 0)]
                      if d.g is not None else (None, None))  # out of core: d.q_npos
    parts = []
    for s in d.score_names:
        n_q = est.stats[s].n
        for k, lab in enumerate(d.label_names):
            npos = npos_k[k] if d.g is not None else d.q_npos[:, k].astype(int)
            a_q = est.stats[s].auc[:, k]
            note = query_notes(a_q, npos, None if nneg_k is None else nneg_k[k], lab)
            parts.append(pd.DataFrame({"scorer": s, "qid": qv, "label": lab, "n": n_q,
                                       "n_pos": npos, "auc": a_q, "note": note}))
    return pd.concat(parts, ignore_index=True)[cols]


def _paired_table(d: _Data, est: _Estimates, boot: dict, ctx: _Ctx) -> list[dict]:
    """Per scorer pair × label × metric: the difference a − b with its interval
    (:meth:`_Ctx.interval`) and test: DeLong's paired variance (the difference of the two
    scorers' influence terms on the same units: rows, or queries; the delta method for the
    gAUC) or the paired bootstrap over the same resampled units. The test is the interval's:
    z, or t with the interval's degrees of freedom when ``interval`` is "t"."""
    rows = []
    kind = _kind(ctx.kind, ctx.clustered)
    over = f"{d.G} queries" if d.qid else f"{d.n} rows"
    for ia, sa in enumerate(d.score_names):
        for sb, k, metric in itertools.product(d.score_names[ia + 1:], range(d.K),
                                               ["auc", "gauc"] if d.qid else ["auc"]):
            vals = est.aucs if metric == "auc" else est.gaucs
            va, vb = vals[sa][k], vals[sb][k]
            row = {"scorer_a": sa, "scorer_b": sb, "label": d.label_names[k], "metric": metric,
                   "value_a": va, "value_b": vb, "diff": va - vb}
            why = None if np.isfinite(va - vb) else f"{metric} of {d.label_names[k]!r} undefined"
            df = _gauc_df(est, sa, k) if metric == "gauc" else ctx.U - 1
            if ctx.boot:
                ja, jb = ctx.jk(sa, metric, k), ctx.jk(sb, metric, k)
                se, lo, hi, note = ctx.interval(
                    va - vb, reps=boot[sa][metric][k] - boot[sb][metric][k], lo=-1.0,
                    jack=None if ja is None else ja - jb, df=df)
                method = f"paired bootstrap over {over} (B={ctx.n_boot}), {kind}"
            else:
                dt = est.terms[sa][metric][k] - est.terms[sb][metric][k]
                se, lo, hi, note = ctx.interval(va - vb, var=float(dt @ dt), lo=-1.0, df=df)
                method = (("DeLong paired" if metric == "auc" else "delta method paired")
                          + ("" if d.qid is None else f", clustered by {d.G} queries")
                          + f", {kind}")
            test = paired_z(va - vb, se * se, ctx.level)
            if ctx.kind == "t":  # the p-value that matches the t interval
                test["p_value"] = t_p_value(test["z"], df)
            row.update(test, ci_low=lo, ci_high=hi,
                       method=method + ("; t test" if ctx.kind == "t" else "; z test"))
            rows.append({**row, "note": _join(why, note)})
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
        "per_query": pq_rows,
        "paired": pd.DataFrame(paired_rows, columns=[
            "scorer_a", "scorer_b", "label", "metric", "value_a", "value_b", "diff", "se",
            "ci_low", "ci_high", "z", "p_value", "p_holm", "method", "note"]),
        "dictatorship": pd.DataFrame(dic_rows, columns=DICTATORSHIP_COLUMNS),
    }
