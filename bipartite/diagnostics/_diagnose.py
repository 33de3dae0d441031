"""The diagnosis (:func:`diagnose`), a report layer over the grouped-AUC engine
(:class:`bipartite.metrics.QuerySegments`, :func:`bipartite.metrics.grouped_stats`), in named
steps: read and check the table (:func:`_read`), the label table (:func:`_label_table`), the point
estimates and the per-unit placement sums (:func:`_estimates`, :mod:`bipartite.diagnostics._placement_sums`),
the bootstrap from those sums (:func:`_bootstrap`, only with ``n_boot > 0``; the jackknife for
BCa, :func:`_jackknife`), then one function per output table
(:mod:`bipartite.diagnostics._outputs`) and the choice among the scorers
(:mod:`bipartite.diagnostics._choice`). Every interval is made in one place,
:class:`bipartite.diagnostics._context.Ctx`. docs/theory.md §2.6 gives the variances,
docs/coverage.md their measured coverage."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_max_fpr,
    check_option,
    check_positive,
    check_random_state,
    pow2_normalise,
)
from bipartite.diagnostics._choice import paired_min_table, recommend, scorers_table
from bipartite.diagnostics._context import Ctx, Data, Estimates, kind_label
from bipartite.diagnostics._dask_report import (
    OUT_OF_CORE_NOTE,
    OutOfCoreSums,
    is_out_of_core,
    out_of_core_sums,
    rows_of,
)
from bipartite.diagnostics._dictator import dictatorship_rows
from bipartite.diagnostics._inference import check_level
from bipartite.diagnostics._intervals import (
    COVERAGE_TARGET,
    check_interval,
    configuration,
    queries_needed,
)
from bipartite.diagnostics._outputs import (
    auc_table,
    frames,
    paired_table,
    per_query_table,
    summary_table,
    win_table,
)
from bipartite.diagnostics._pairs import PairStats, pair_blocks, pair_stats, pair_sums
from bipartite.diagnostics._placement_sums import PlacementSums, label_sums
from bipartite.diagnostics._progress import Progress
from bipartite.diagnostics._report import Diagnostics
from bipartite.diagnostics._scan import (
    compiled_walk,
    exact_sums,
    fused,
    kept,
    masses,
    pair_result,
    scorer_stats,
)
from bipartite.diagnostics._score_table import as_names, column, frame, label_bits, query_ids
from bipartite.dictatorship import (
    dictator,
    effective_weight_shares,
    effective_weights,
)
from bipartite.metrics import (
    GAUC_WEIGHTINGS,
    GroupedStats,
    QuerySegments,
    query_scaled,
)

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

__all__ = ["GAUC_DEFINITIONS", "HOLM", "MAX_BOOT_BYTES", "MAX_FPR_OUT_OF_CORE", "MAX_N_BOOT",
           "diagnose"]

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

#: Why ``max_fpr`` (``--max-fpr``) is refused out of core, raised before any work.
MAX_FPR_OUT_OF_CORE = (
    "The 'max_fpr' parameter (--max-fpr) is in-memory only: out of core the report has the "
    "per-query placement sums, not the pooled ROC curve's per-tie-group sums that a partial AUC "
    "needs; leave it out, or run the report in memory (docs/out_of_core.md).")
#: Largest ``n_boot`` :func:`diagnose` accepts (a million replicates: far past where the
#: intervals stop changing).
MAX_N_BOOT = 1_000_000
#: Largest memory the bootstrap replicates may take (bytes): per scorer, 8 bytes × n_boot × (2 K
#: + K(K − 1)/2) for the AUCs, gAUCs and win rates of K labels. Checked before anything is read.
MAX_BOOT_BYTES = 2 * 2**30


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
    max_fpr: float | None = None,
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
        (:mod:`bipartite.diagnostics._placement_sums`: O(queries) per replicate, or O(n) without
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
    max_fpr : float in (0, 1], optional — adds to the ``auc`` table the column ``pauc``: per
        scorer and label the partial AUC up to the false positive rate ``max_fpr``,
        McClish-standardised (:func:`bipartite.metrics.partial_auc`, docs/theory.md §2.7; 0.5
        random, 1 perfect), pooled over all rows with the row weights (with query ids too: the
        queries are not separated), a point estimate without interval; ``meta["max_fpr"]``
        records it. In memory only: out of core a ``ValueError``
        (:data:`MAX_FPR_OUT_OF_CORE`) is raised before any work

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
    max_fpr = None if max_fpr is None else check_max_fpr(max_fpr)
    if not isinstance(dropna, bool | np.bool_):
        raise ValueError(f"The 'dropna' parameter must be True or False, got {dropna!r}.")
    bar = Progress(progress)
    if scheduler is not None or is_out_of_core(data):  # docs/out_of_core.md
        if max_fpr is not None:
            raise ValueError(MAX_FPR_OUT_OF_CORE)
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
    how = kind_label(kind, qid is not None)
    if n_boot:
        method = (f"bootstrap over {d.G} queries" if qid is not None else
                  f"bootstrap over {d.n} rows") + f" (B={n_boot}), {how}"
    elif qid is None:
        method = f"DeLong, {how}"
    else:
        method = f"DeLong clustered by query ({d.G} queries; gAUC: delta method), {how}"
    jack = _jackknife(d, est, gauc_weighting) if kind == "bca" and n_boot and d.U > 1 else {}
    ctx = Ctx(level, d.U, n_boot, no_boot, no_var, method, qid is not None, kind, jack)
    few = _few_queries_warning(d, kind, n_boot)
    auc_rows = auc_table(d, est, boot, ctx, max_fpr)
    win_rows = win_table(d, est, boot, ctx)
    summary_rows = summary_table(d, est, boot, ctx)
    scorer_rows = scorers_table(auc_rows, summary_rows)
    pmin_rows = paired_min_table(d, est, boot, ctx)
    tables = frames(label_rows, auc_rows, win_rows, summary_rows, per_query_table(d, est),
                    paired_table(d, est, boot, ctx),
                    dictatorship_rows(label_rows, win_rows, score_names), scorer_rows, pmin_rows)
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
            "n_labels_defined": n_defined, "max_fpr": max_fpr}
    if d.n_rows is not None:
        meta["out_of_core"] = OUT_OF_CORE_NOTE
    return Diagnostics(tables=tables, meta=meta,
                       recommendation=recommend(scorer_rows, pmin_rows, level))


def _few_queries_warning(d: Data, kind: str, n_boot: int) -> str | None:
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
          weight: str | None, positive_label=None, dropna: bool = False) -> Data:
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
    Yt = np.stack([label_bits(df, c, source, positive_label) for c in label_names])
    if weight:
        w = column(df, weight, "weight", source)
        const_w = float(w[0]) if np.all(w == w[0]) else None
    else:
        w, const_w = np.broadcast_to(1.0, n), 1.0  # read-only, no memory
    if not (const_w > 0 if const_w is not None else w.sum() > 0):
        raise ValueError(f"The weight column {weight!r} of the {where} is zero on every row.")
    g, G, qvalues = None, 0, None
    if qid is not None:  # the metrics' query-id check (bipartite._utils.validation)
        g, G, qvalues = query_ids(df, qid, source)
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    return Data(
        where=where, n_dropped=n_dropped, score_names=score_names, label_names=label_names,
        S=S, Yt=Yt, w=w, qid=qid, g=g, G=G, qvalues=qvalues, U=G if qid is not None else n,
        pairs=pairs, const_w=const_w)


def _label_table(d: Data) -> tuple[list[dict], int | None]:
    """Labels: priors, effective weights, the dictator (loss aggregation, a = 1)."""
    K = d.K
    # each label's positive weight share (out of core: from the per-query sums)
    n_pos, _ = d.class_counts()
    if d.n_rows is not None:
        prior = d.prior
    elif d.const_w is not None:  # every row weighs the same: the share of positive rows
        prior = np.asarray(n_pos, dtype=np.float64) / d.n
    else:
        prior = (d.w @ d.Y) / d.w.sum()
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


def _estimates(d: Data, tol: float, gauc_weighting: str, bar: Progress) -> Estimates:
    """Point estimates per scorer from its global sort and its (query, score) order with query
    ids, and the placement sums of the labels (:func:`bipartite.diagnostics._placement_sums.
    placement_sums`): pooled AUCs, per-query AUCs and gAUCs, the analytic variances' influence
    terms; the cross-pair win rates and near-tie rates (with their variances) on the same
    global sort. The route is chosen here, once: up to
    :data:`bipartite.diagnostics._scan.FUSED_ROWS` label and pair rows, one walk
    (:func:`bipartite.diagnostics._scan.scorer_stats`): from
    :data:`~bipartite.diagnostics._scan.COMPILED_MIN_ROWS` rows on the compiled passes of
    :mod:`bipartite.diagnostics._walk` (one packed-key sort per scorer, the global and within-query sums in one pass over it,
    docs/theory.md §7.5), below them the NumPy walks
    (:func:`~bipartite.diagnostics._scan.compiled_walk`); wider label sets take the whole-array route (a second sort,
    ``label_sums``, ``pair_stats`` blocked by pairs)."""
    c = None
    one_walk = fused(d.K)
    if d.const_w is not None:  # one weight (no weight column): scaled as one row is
        c = float(pow2_normalise(d.w[:1])[0])
        # the one walk reads c itself: a read-only view of c, no memory
        ws = np.broadcast_to(c, d.n) if one_walk else np.full(d.n, c)
        wq, exp = (ws, None) if d.g is not None else (None, None)  # query_scaled's, one scale
    else:
        ws = pow2_normalise(d.w)  # exact; 1e-170 weights must not underflow in P N
        # each query's AUC scale-free, as group_auc takes it: None while one scale holds them
        wq, exp = query_scaled(d.w, d.g, d.G) if d.g is not None else (None, None)
    out = Estimates({}, {}, {}, {}, {}, {}, {})
    if one_walk:
        Yt = d.Yt  # (K, n), 1 byte a label
        kj = np.asarray(d.pairs, dtype=np.int64).reshape(-1, 2)
        ms = masses(Yt, ws, kj, d.g, d.G or None, constant=c, packed=d.packed)
        cnt = None if d.packed is None else d.packed[1]
        n_rows = (np.ones(d.n, dtype=np.int64) if d.g is None else
                  cnt.sum(axis=1) if cnt is not None else np.bincount(d.g, minlength=d.G))
        weight = (np.array(ws) if d.g is None else n_rows * ms.c if exact_sums(ms) else
                  np.bincount(d.g, ws, minlength=d.G))
    for s in d.score_names:
        with bar.step(f"sorting {s!r}", "sort"):
            seg = qseg = None  # the one walk sorts the rows itself (in its compiled passes)
            if not one_walk:
                seg = out.segs[s] = QuerySegments(d.S[s], check_input=False)
                if d.g is not None:
                    qseg = QuerySegments(d.S[s], d.g, check_input=False)
        with bar.step(f"placements {s!r}", "placements"):
            if one_walk:
                st, ps, near = scorer_stats(d.S[s], seg, qseg, Yt, ms, d.g, d.G or None,
                                            weight, n_rows, tol, compiled=compiled_walk(d.n))
            else:
                st = label_sums(d.S[s], d.Y, ws, codes=d.g, G=d.G or None, seg=seg, qseg=qseg)
            if exp is not None:
                st = replace(st, queries=_queries_scale_free(d, s, wq, exp))
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


def _segments(d: Data, est: Estimates, s: str) -> QuerySegments:
    """Scorer ``s``'s global :class:`~bipartite.metrics.QuerySegments`, made at first use (the
    one walk sorts the rows itself; the bootstrap's and the jackknife's pair sums, when made
    again, need them)."""
    if s not in est.segs:
        est.segs[s] = QuerySegments(d.S[s], check_input=False)
    return est.segs[s]


def _queries_scale_free(d: Data, s: str, wq: np.ndarray, exp: np.ndarray) -> GroupedStats:
    """Scorer ``s``'s per-query statistics of the labels with the row weights ``wq`` scaled by
    each query's own power of two ``exp`` (:func:`bipartite.metrics.query_scaled`, taken when
    the weights span more than 2^400): the engine's per-query AUCs and, through ``exp``, the
    gAUC weights on one scale, exactly as :func:`bipartite.metrics.group_auc` takes them (a
    query of weights 1e-300 beside one of 1e300 keeps its AUC; one power of two for all rows
    would underflow its ``P_q N_q`` to 0)."""
    pos = d.Y.T * wq
    gs = QuerySegments(d.S[s], d.g, check_input=False).stats(pos, wq - pos, weight=wq)
    return replace(gs, exp=exp)


def _point_estimates(out: Estimates, s: str, st: PlacementSums, gauc_weighting: str) -> None:
    """Scorer ``s``'s pooled AUCs, DeLong terms and (units: queries) gAUCs from the labels'
    placement sums ``st``."""
    out.sums[s] = st
    out.aucs[s] = st.auc()
    out.terms[s] = {"auc": st.terms()}
    if st.clustered:
        out.stats[s] = st.grouped()
        out.gaucs[s] = out.stats[s].gauc(gauc_weighting)
        out.terms[s]["gauc"] = st.gauc_terms(gauc_weighting)
        # the queries defining each gAUC (λ_q > 0): the G' of its terms and its t interval
        out.gauc_queries[s] = np.count_nonzero(
            out.stats[s].query_weights(gauc_weighting) > 0, axis=0)
    else:
        out.gaucs[s] = np.full(st.m, np.nan)


def _out_of_core(src: OutOfCoreSums, gauc_weighting: str) -> tuple[Data, Estimates]:
    """The checked table and the estimates from the out-of-core per-query sums (no row arrays):
    every scorer's labels (the first K pairs) and cross pairs (the rest: the win rates, their
    DeLong variances, bootstrap and jackknife; near-tie rates not computed, NaN)."""
    K, names = len(src.label_names), src.label_names
    first = next(iter(src.sums.values()))
    P, N = first.pos[:K].sum(axis=1), first.neg[:K].sum(axis=1)
    d = Data(where=src.where, n_dropped=0, score_names=src.score_names, label_names=names,
              S={}, Yt=np.zeros((K, 0), dtype=bool), w=np.zeros(0), qid=src.qid, g=None, G=src.G,
              qvalues=src.qvalues, U=src.G,
              pairs=[(k, j) for k in range(K) for j in range(k + 1, K)], n_rows=src.n_rows,
              q_npos=src.q_npos, prior=P / (P + N))
    est = Estimates({}, {}, {}, {}, {}, {}, {})
    for s, st in src.sums.items():
        _point_estimates(est, s, rows_of(st, slice(0, K)), gauc_weighting)
        cross = rows_of(st, slice(K, st.m))
        nan = np.full(cross.m, np.nan)
        est.wins[s] = PairStats(win=cross.auc(), var=cross.var(), near_tie=nan,
                                n_k_only=cross.n_pos.astype(np.int64),
                                n_j_only=cross.n_neg.astype(np.int64))
        est.pair_sums[s] = [(slice(0, cross.m), cross)]
    return d, est


def _bootstrap(d: Data, est: Estimates, n_boot: int, rng: np.random.Generator,
               bar: Progress, gauc_weighting: str) -> dict:
    """The same resampled units (queries, or rows) for every scorer, label and pair: per scorer
    the replicates of the pooled AUCs (linearised), gAUCs (exact) and win rates (linearised),
    all from the placement sums (:mod:`bipartite.diagnostics._placement_sums`): O(units) per replicate.
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
        return [(sl, pair_sums(d.S[s], d.Y, ws, kj[sl], codes=codes, G=G,
                               seg=_segments(d, est, s)))
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


def _jackknife(d: Data, est: Estimates, gauc_weighting: str) -> dict:
    """Exact leave-one-unit-out values (each query left out in turn, or each row without query
    ids) of the AUCs, gAUCs and win rates, for BCa's acceleration, from the placement sums
    (:meth:`bipartite.diagnostics._placement_sums.PlacementSums.jackknife_auc` and ``jackknife_gauc``):
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
                                seg=_segments(d, est, s), within=True).jackknife_auc()
        out[s] = {"auc": st.jackknife_auc(), "win": win,
                  "gauc": st.jackknife_gauc(gauc_weighting) if st.clustered else None}
    return out
