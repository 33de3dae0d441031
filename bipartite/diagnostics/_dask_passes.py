"""Exact placement statistics out of core, on dask (docs/theory.md §2.3, §7.5; docs/out_of_core.md).

:func:`placement_stats` reads a dask DataFrame (or a folder, glob or list of Parquet files) of
scores, binary labels and optional row weights and query ids, and returns the sufficient
statistics of the diagnostics, **exactly** (no binning): per scorer and per positive / negative
weight pair — each label k (``pos = w y_k``, ``neg = w (1 − y_k)``) and each cross pair k < j
(``pos = w [y_k = 1, y_j = 0]``, ``neg = w [y_k = 0, y_j = 1]``) — the per-query sums of DeLong's
placements (:meth:`bipartite.metrics.QuerySegments.placements`: the negative mass scored below a
row plus ½ the tied, the positive mass above plus ½ the tied), globally and within the query,
and their second moments. :meth:`PlacementStats.summary` turns them into the AUCs, win rates
W_{k>j}, DeLong variances (unclustered and query-clustered), per-query AUCs and gAUCs.

The method (three passes over the data, each dask's own machinery; docs/out_of_core.md):

1. **check and cut**: one pass checks every column (NaN, labels outside {0, 1}, negative
   weights, missing query ids: the error names the column, value, file and row), lists each
   partition's queries and takes dask's
   approximate quantiles of every score; their distinct values are the *cut points* c_0 < … <
   c_{m−1}. A score s falls in bucket ``2i`` when ``c_{i−1} < s < c_i`` (an open range) and in
   bucket ``2i + 1`` when ``s = c_i`` (a point): buckets are ordered by score and equal scores
   always share one, so **ties never straddle buckets**.
2. **count**: one pass sums the positive and negative mass of every pair per bucket; their prefix
   sums on the driver are each bucket's mass strictly below and above (a small table), and the
   AUC binned by the buckets is the centre of the second moments.
3. **place**: rows of a point bucket are all tied, so their placements are the mass below plus ½
   the bucket's mass, in place (a heavy tie is never shuffled). Rows of the range buckets are
   range-partitioned by bucket (divisions balanced from the bucket counts; each row is moved
   by dask's p2p shuffle, on disk, straight to the partition of its bucket, without
   ``set_index``'s sort by bucket), narrowed first to the score, the labels as uint8, the
   weight and the query's global code as int32 (the position of its id in the run's sorted
   ids, listed by pass 1): a partition holds a contiguous run of whole range buckets, is
   sorted once (:class:`~bipartite.metrics.QuerySegments`) and a row's placement is its
   cumulative mass in the partition (ties ½) plus the mass below the run and that of the point
   buckets inside it below the row. A range partition touches nearly every query, so its
   per-query sums of ``pos · below`` and ``neg · above`` are a dense array indexed by the
   global code, summed over the partitions by a tree of array sums (``reduction``, 4 at a
   time; no groupby whose input grows with partitions × queries); the point buckets' sparse
   per-query sums are added on the driver. Within-query placements come from one (query,
   score) sort per scorer and partition, on every input partition in place (right for the
   queries whole in it: pass 1 lists every partition's queries, so data written by query is
   not shuffled) and on a p2p shuffle by query id of the rows of the others
   (``shuffle(on=qid)``), whose placement sums replace the partial ones (all rows shuffled when
   most queries are split). Pass 3 is one ``persist`` (both scorers and the within-query sums,
   so every input partition is read once for all of them) whose partitions are gathered one by
   one to the driver (no worker concatenates a table of every query).

Memory on a worker is bounded by a partition's rows and a few dense per-query arrays (8 bytes ×
2 × weight pairs × queries each) at a time, not by the data: the 10⁸-row benchmark runs in 1 GB a
worker (docs/out_of_core.md). The local clusters of the CLI and the benchmark cap dask's p2p
comm buffer (1 GiB a worker by default) to an eighth of a worker's memory limit
(:func:`bipartite._utils.cluster.local_cluster`).

Every statistic is a sum of exact per-row terms: with integer weights the first-moment sums are
half-integers, exact in float64 below 2**53; otherwise they agree with the in-memory engine to
rounding (1e-12 relative in the tests). Weights outside [2**-100, 2**100] are scaled once by a
power of two (:attr:`PlacementStats.weight_scale`, exact) so that products of weights neither
under- nor overflow. Weights spanning more than 2**400 (:func:`bipartite.metrics.query_scaled`)
also give within-query sums on each query's own power of two (pass 1 reduces each query's
largest weight; :func:`bipartite.diagnostics._dask_kernels.within_part`): the per-query AUCs and
gAUCs scale-free per query, as in memory.
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bipartite._utils.validation import check_positive, pow2_scale
from bipartite.diagnostics import _dask_kernels as _kernels
from bipartite.diagnostics._dask_io import (
    InputChanged,
    check_address,
    check_dtypes,
    check_unchanged,
    compute,
    compute_parts,
    connect,
    dask_frame,
)
from bipartite.diagnostics._dask_kernels import (
    CENTRED_STATS,
    KIND,
    MOMENT_STATS,
    PAIR_STATS,
    QKEY,
    QSCALED_STATS,
    SCORER_STATS,
    bucket_mass,
    check_part,
    global_columns,
    integer_scores,
    meta_frame,
    point_part,
    query_codes,
    range_meta,
    range_part,
    range_rows,
    split_rows,
    sum_dense,
    within_columns,
    within_part,
)
from bipartite.diagnostics._dask_stats import PlacementStats
from bipartite.diagnostics._dask_wait import check_memory
from bipartite.metrics import needs_query_scales, query_exponents

if TYPE_CHECKING:
    import dask.dataframe as dd
    from distributed import Client

__all__ = ["placement_stats"]


def _divisions(rows: np.ndarray, parts: int) -> list[int]:
    """Bucket divisions (``set_index``) of the range buckets (even ids) into at most ``parts``
    partitions of about equal rows."""
    nb = len(rows)
    r = np.where(np.arange(nb) % 2 == 0, rows, 0)
    cum = np.cumsum(r)
    total = cum[-1] if nb else 0
    cuts = np.searchsorted(cum, total * np.arange(1, parts) / parts, side="left") + 1
    return sorted({0, *map(int, cuts[(cuts > 0) & (cuts < nb - 1)]), nb - 1})


def _to_partitions(frame: Any, nparts: int, method: str | None) -> Any:
    """``frame``'s rows moved to the partition in their column ``_partitions`` (dropped), by
    dask's own shuffle (the step of ``set_index`` with known divisions, without its sort)."""
    from dask.dataframe.dask_expr._collection import new_collection
    from dask.dataframe.dask_expr._shuffle import Shuffle

    moved = new_collection(Shuffle(frame.expr, "_partitions", npartitions_out=nparts,
                                      ignore_index=True, method=method, options=None))
    return moved[[c for c in frame.columns if c != "_partitions"]]


def _as_names(x: Any, name: str) -> list[str]:
    names = [x] if isinstance(x, str) else list(x) if isinstance(x, Sequence) else None
    if not names or not all(isinstance(c, str) for c in names) or len(set(names)) != len(names):
        raise ValueError(f"The '{name}' parameter must be a column name or a list of distinct "
                         f"column names, got {x!r}.")
    return names


def placement_stats(
    data: dd.DataFrame | pd.DataFrame | str | os.PathLike | Sequence[str | os.PathLike],
    scores: str | Sequence[str],
    labels: str | Sequence[str],
    *,
    qid: str | None = None,
    weight: str | None = None,
    scheduler: str | Client | None = None,
    rows_per_partition: int = 500_000,
    n_cuts: int | None = None,
    progress: bool = False,
) -> PlacementStats:
    """Exact placement statistics of every scorer and weight pair, out of core on dask
    (docs/theory.md §2.3, §7.5; the method: this module's docstring and docs/out_of_core.md).

    Parameters
    ----------
    data : dask or pandas DataFrame, or a Parquet folder, glob, file or list of files (read with
        :func:`dask.dataframe.read_parquet`; every file's footer is checked first)
    scores : column name(s) of the scorers (higher ranks first)
    labels : column name(s) of the binary (0/1 or boolean) labels
    qid : column name of the query ids, optional (any hashable values, no missing one)
    weight : column name of non-negative row weights, optional
    scheduler : None (dask's current scheduler: the active ``distributed.Client``, else the local
        threads), a ``distributed.Client``, or the address of a running scheduler
    rows_per_partition : int — target rows of every partition (Parquet row groups are read
        together up to it; the range and query partitions are sized by it)
    n_cuts : int, optional — quantile levels for the cut points (default
        ``max(2048, 8 × input partitions)``); more cuts balance the partitions better and put
        more rows of a tied score (one rounded to a few decimals) in point buckets, computed in
        place instead of shuffled
    progress : bool — each pass's progress on stderr (a tqdm bar over its tasks, whose remaining
        time is measured as they finish; docs/out_of_core.md)

    Returns
    -------
    PlacementStats — per-query and total statistics; ``.summary()`` the AUCs, W_{k>j}, DeLong
    variances and gAUCs as small DataFrames.

    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"s": [0.1, 0.4, 0.35, 0.8], "y": [0, 0, 1, 1], "q": [0, 0, 1, 1]})
    >>> st = placement_stats(df, "s", "y", qid="q")
    >>> t = st.summary()["auc"]
    >>> float(t["auc"].iloc[0]), float(t["var_delong"].iloc[0])
    (0.75, 0.125)
    """
    score_names, label_names = _as_names(scores, "scores"), _as_names(labels, "labels")
    for name, col in (("qid", qid), ("weight", weight)):
        if col is not None and (not isinstance(col, str) or col in score_names + label_names):
            raise ValueError(f"The '{name}' parameter must be a column name that is neither a "
                             f"score nor a label, got {col!r}.")
    if set(score_names) & set(label_names):
        raise ValueError(f"The columns {sorted(set(score_names) & set(label_names))} are given "
                         "both as 'scores' and as 'labels'.")
    if isinstance(scheduler, str):
        check_address(scheduler)  # before anything is read
    rpp = check_positive(rows_per_partition, "rows_per_partition", integer=True)
    needed = score_names + label_names + [c for c in (weight, qid) if c is not None]
    numeric = {**{s: "score" for s in score_names}, **{c: "label" for c in label_names},
               **({weight: "weight"} if weight else {})}
    ddf, where, pieces = dask_frame(data, needed, rpp, numeric)
    check_dtypes(ddf, where, numeric)
    ints = [s for s in score_names if pd.api.types.is_integer_dtype(ddf[s].dtype)
            and ddf[s].dtype.itemsize == 8]
    if ints:  # 64-bit integers ranked exactly, not rounded to float64 (docs/out_of_core.md)
        meta = pd.DataFrame({c: pd.Series([], dtype=np.float64 if c in ints else dt)
                             for c, dt in ddf.dtypes.items()})
        ddf = ddf.map_partitions(integer_scores, ints, meta=meta)
    nc = (max(2048, 8 * ddf.npartitions) if n_cuts is None
          else check_positive(n_cuts, "n_cuts", integer=True))
    K = len(label_names)
    pairs = [(k, -1) for k in range(K)] + [(k, j) for k in range(K) for j in range(k + 1, K)]
    spec = {"scores": score_names, "labels": label_names, "weight": weight, "qid": qid,
            "pairs": pairs, "scale": 1.0, "progress": bool(progress),
            "must": {"score": "hold finite numbers", "label": "hold only 0 and 1",
                     "weight": "hold finite non-negative numbers",
                     "qid": "have no missing value"}}
    with connect(scheduler) as client:
        # refused up front when a piece cannot fit under the workers' limit, and again once
        # pass 1 has counted the queries (docs/out_of_core.md, "Memory, progress and stalls")
        memory = {"max_rows": max(p[3] for p in pieces) if pieces else 0,
                  "n_cols": len(needed), "n_pairs": len(pairs), "n_scores": len(score_names)}
        if pieces:
            check_memory(client, **memory)
        # every input file is checked against its identity recorded by dask_frame before each
        # later pass and at the end, and by every read (docs/out_of_core.md)
        info, cuts = _pass_check(client, ddf, spec, pieces, where, nc)
        if pieces and qid is not None:
            check_memory(client, **memory, n_queries=len(info["uq"]))
        if not 2.0**-100 <= info["w_max"] <= 2.0**100:  # products of weights stay finite
            spec["scale"] = float(pow2_scale(info["w_max"]))
        spec["qscaled"] = info["exp"] is not None
        check_unchanged(pieces)
        offsets = _pass_count(client, ddf, spec, cuts, where)
        for s in score_names:
            _same_rows(int(offsets[s]["rows"].sum()), info["n"], "second", where)
        check_unchanged(pieces)
        glob_q, within = _pass_place(client, ddf, spec, cuts, offsets, rpp, where, info)
        _same_rows(int(within["rows"].sum()), info["n"], "third", where)
        check_unchanged(pieces)
    return _assemble(spec, glob_q, within, info, offsets, where)


def _same_rows(n: int, n_first: int, which: str, where: str) -> None:
    """The rows a later pass read must be those of the first (a dask DataFrame that changed
    between passes: the files are checked one by one, :func:`check_unchanged`)."""
    if n != n_first:
        raise InputChanged(f"The {where} changed while the report was reading it: the {which} "
                           f"pass read {n} rows, the first {n_first}; stopped rather than mix "
                           "two versions of the data (docs/out_of_core.md).")


def _pass_check(client: Any, ddf: Any, spec: dict, pieces: list[tuple] | None, where: str,
                nc: int) -> tuple[dict, dict[str, np.ndarray]]:
    """Pass 1: every partition checked, the rows and weights counted, the cut points of every
    score (the distinct values of dask's approximate quantiles)."""
    meta = pd.DataFrame({"n": pd.Series([], dtype=np.int64), "w_sum": pd.Series([], dtype=float),
                         "w_max": pd.Series([], dtype=float),
                         "w_low": pd.Series([], dtype=float),
                         "problem": pd.Series([], dtype=object),
                         "row": pd.Series([], dtype=np.int64),
                         "qids": pd.Series([], dtype=object),
                         "qrows": pd.Series([], dtype=object),
                         "qtop": pd.Series([], dtype=object)})
    chk = ddf.map_partitions(check_part, spec, meta=meta)
    qs = np.linspace(0.0, 1.0, nc + 2)[1:-1]
    with warnings.catch_warnings():  # quantiles of bad values warn; the check names them
        warnings.simplefilter("ignore", RuntimeWarning)
        res = compute(client, chk, *[ddf[s].quantile(qs) for s in spec["scores"]], where=where,
                      step="pass 1 of 3 (check and cut)", progress=spec["progress"])
    table = res[0].reset_index(drop=True)
    for i, (problem, row) in enumerate(zip(table["problem"], table["row"], strict=True)):
        if problem:
            at = (f"row {pieces[i][2] + row} of the Parquet file {pieces[i][0]!r}" if pieces
                  else f"row {row} of partition {i} of the {where}")
            raise ValueError(problem.replace("{where}", at))
    n = int(table["n"].sum())
    if n < 2:
        raise ValueError(f"The {where} must have at least 2 rows, got {n}.")
    if spec["weight"] is not None and not table["w_sum"].sum() > 0:
        raise ValueError(f"The weight column {spec['weight']!r} of the {where} is zero on every "
                         "row.")
    cuts = {s: np.unique(np.asarray(q, dtype=np.float64)) for s, q in
            zip(spec["scores"], res[1:], strict=True)}
    info = {"n": n, "w_max": float(table["w_max"].max()), "split": None, "split_rows": 0,
            "exp": None}
    if spec["qid"] is not None:  # the queries met in several partitions, and their rows
        arrs = [np.asarray(q) for q in table["qids"]]
        cat = np.concatenate(arrs) if all(a.dtype.kind in "iuf" for a in arrs) else \
            np.concatenate([a.astype(object) for a in arrs])
        ids = pd.Series(cat)
        rows = np.concatenate(list(table["qrows"])).astype(np.int64)
        twice = ids.duplicated(keep=False).to_numpy()
        info["split"] = pd.unique(ids[twice].to_numpy())
        info["split_rows"] = int(rows[twice].sum())
        info["uq"] = _query_ids(cat)
        if spec["weight"] is not None and needs_query_scales(float(table["w_low"].min()),
                                                             info["w_max"]):
            # each query's AUC on its own power of two, as in memory (query_scaled): the
            # exponents of the queries' largest weights, reduced over the partitions
            top = np.zeros(len(info["uq"]))
            np.maximum.at(top, query_codes(cat, info["uq"]),
                          np.nan_to_num(np.concatenate(list(table["qtop"]))))
            info["exp"] = query_exponents(top)
    else:
        info["uq"] = np.zeros(1, dtype=np.int64)
    return info, cuts


def _query_ids(ids: np.ndarray) -> np.ndarray:
    """The run's distinct query ids: sorted (numbers: the global code of an id is found by binary
    search), else in order of first appearance (sorted where they compare)."""
    if ids.dtype.kind in "iuf":
        return np.unique(ids)
    uq = pd.unique(ids)
    with contextlib.suppress(TypeError):  # ids of mixed types keep their order
        uq = np.asarray(pd.Index(uq).sort_values(), dtype=object)
    return np.asarray(uq, dtype=object)


def _pass_count(client: Any, ddf: Any, spec: dict, cuts: dict, where: str) -> dict:
    """Pass 2: per scorer and bucket, the mass of every pair; their prefix sums (each bucket's
    mass strictly below and above, and that of the point buckets alone) are the offsets of the
    placements; the AUC binned by the buckets gives the moments' centres."""
    m = len(spec["pairs"])
    names = ["rows", *(f"{c}:{p}" for p in range(m) for c in ("pos", "neg"))]
    meta = pd.DataFrame({"scorer": pd.Series([], dtype=np.int64),
                         "bucket": pd.Series([], dtype=np.int64),
                         **{c: pd.Series([], dtype=float) for c in names}})
    (tab,) = compute(client, ddf.map_partitions(bucket_mass, spec, cuts, meta=meta)
                      .groupby(["scorer", "bucket"]).sum(split_every=8), where=where,
                     step="pass 2 of 3 (count)", progress=spec["progress"])
    offsets = {}
    for si, s in enumerate(spec["scores"]):
        nb = 2 * len(cuts[s]) + 1
        t = tab.xs(si, level="scorer").reindex(np.arange(nb), fill_value=0.0)
        pos = t[[f"pos:{p}" for p in range(m)]].to_numpy(dtype=np.float64).T
        neg = t[[f"neg:{p}" for p in range(m)]].to_numpy(dtype=np.float64).T
        odd = np.arange(nb) % 2 == 1
        npt, ppt = np.where(odd, neg, 0.0), np.where(odd, pos, 0.0)
        nbl = np.cumsum(neg, axis=1) - neg
        P, N = pos.sum(axis=1), neg.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            th0 = np.nan_to_num(np.sum(pos * (nbl + 0.5 * neg), axis=1) / (P * N), nan=0.5)
        offsets[s] = {"pos": pos, "neg": neg, "neg_below": nbl,
                      "pos_above": P[:, None] - np.cumsum(pos, axis=1),
                      "neg_pt_below": np.cumsum(npt, axis=1) - npt,
                      "pos_pt_above": ppt.sum(axis=1, keepdims=True) - np.cumsum(ppt, axis=1),
                      "rows": t["rows"].to_numpy(), "centre_below": th0 * N,
                      "centre_above": th0 * P}
    return offsets


def _pass_place(client: Any, ddf: Any, spec: dict, cuts: dict, offsets: dict, rpp: int,
                where: str, info: dict) -> tuple[list[np.ndarray], pd.DataFrame]:
    """Pass 3, one compute: per scorer the dense per-query sums of the global placements (point
    buckets in place, range buckets range-partitioned and summed as dense arrays), and the
    within-query sums: in place for the queries whole in one partition (the check pass listed
    every partition's queries), the rows of the others shuffled by query id (all rows when most
    queries are split)."""
    import dask

    qid, uq = spec["qid"], info["uq"]
    G = len(uq)
    if G > _kernels.MAX_QUERIES:  # checked before any shuffle allocates codes
        raise ValueError(f"The qid column {qid!r} has {G} distinct query ids; the out-of-core "
                         f"report takes at most {_kernels.MAX_QUERIES} (int32 query codes).")
    method = "p2p" if client is not None else None  # p2p: on disk, bounded memory
    qmeta = ddf[qid].dtype if qid is not None else np.int64
    gcols = global_columns(spec)
    pmeta = meta_frame(np.int64, gcols)
    pmeta.insert(0, KIND, pd.Series([], dtype=np.int64))
    dmeta = pd.DataFrame({"dense": pd.Series([], dtype=object)})
    fmeta = pd.DataFrame({c: pd.Series([], dtype=dt) for c, dt in ddf.dtypes.items()})
    uq_d = dask.delayed(uq) if qid is not None else None  # travels once, as a dependency
    # each query's power of two (spec["qscaled"]; within_part), likewise a dependency
    qx = (uq_d, dask.delayed(info["exp"])) if spec.get("qscaled") else ()
    objs, rest = [], None
    for s in spec["scores"]:
        point = ddf.map_partitions(point_part, spec, s, cuts[s], offsets[s], uq_d, meta=pmeta)
        rows = offsets[s]["rows"]
        divs = _divisions(rows, max(1, math.ceil(int(rows[::2].sum()) / rpp)))
        # bucket -> partition (those of set_index(divisions=divs)); shuffled straight there,
        # without set_index's sort of every partition by bucket (range_part sorts by score)
        part_of = np.searchsorted(np.asarray(divs[1:-1]), np.arange(len(rows)),
                                  side="right").astype(np.int32)
        rng = _to_partitions(ddf.map_partitions(range_rows, spec, s, cuts[s], part_of, uq_d,
                                                meta=range_meta(spec, s)),
                             len(divs) - 1, method)
        # dense per-query tables summed by a tree of array sums (no groupby that grows with
        # partitions × queries)
        dense = rng.reduction(range_part, aggregate=sum_dense, combine=sum_dense, meta=dmeta,
                              split_every=4, chunk_kwargs={"spec": spec, "score": s,
                                                           "cuts": cuts[s],
                                                           "offsets": offsets[s], "G": G})
        objs += [point, dense]
    if qid is not None:
        wmeta = meta_frame(qmeta, within_columns(spec, True))
        split, n_split = info["split"], info["split_rows"]
        parts = max(1, math.ceil(info["n"] / rpp))
        if n_split > info["n"] // 2:  # most rows: shuffle them all (no filter)
            within = ddf.shuffle(on=qid, npartitions=parts, shuffle_method=method
                                 ).map_partitions(within_part, spec, True, *qx, meta=wmeta)
        else:
            # every partition in place (the placements of its split queries are discarded);
            # the rows of the split queries shuffled by query id and placed again. The split
            # list travels once as a graph dependency, not copied into every task.
            within = ddf.map_partitions(within_part, spec, True, *qx, meta=wmeta)
            if n_split:
                rest = ddf.map_partitions(split_rows, qid, dask.delayed(split), True,
                                          meta=fmeta).shuffle(
                    on=qid, npartitions=max(1, math.ceil(n_split / rpp)), shuffle_method=method)
                rest = rest.map_partitions(within_part, spec, True, *qx, meta=wmeta)
    else:
        within = ddf.map_partitions(within_part, spec, False, meta=meta_frame(
            qmeta, within_columns(spec, False))).groupby(QKEY).sum(split_every=8)
    # one compute: every input partition is read once for all of them; the results come back
    # partition by partition (no worker concatenates a table of every query)
    res = compute_parts(client, *objs, within, *([] if rest is None else [rest]), where=where,
                        step="pass 3 of 3 (place)", progress=spec["progress"])
    dense = []
    for si in range(len(spec["scores"])):
        D = sum_dense(pd.concat(res[2 * si + 1]))["dense"]
        D = D.iloc[0].T.copy() if len(D) else np.zeros((G + 2, len(gcols)))
        P = pd.concat(res[2 * si], ignore_index=True)
        kind, code = P[KIND].to_numpy(), P[QKEY].to_numpy(dtype=np.int64)
        for c, name in enumerate(gcols):  # the point buckets' sparse sums added in
            v = P[name].to_numpy()
            D[:G, c] += np.bincount(code[kind == 0], v[kind == 0], minlength=G)
            D[G, c] += v[kind == 1].sum()
            D[G + 1, c] += v[kind == 2].sum()
        dense.append(D)
    k = 2 * len(spec["scores"])
    within = pd.concat(res[k])
    within = (within.reset_index() if QKEY not in within.columns else
              within.reset_index(drop=True))
    if rest is not None:
        within = _replace_split(within, pd.concat(res[k + 1], ignore_index=True), info["split"])
    return dense, within


def _replace_split(within: pd.DataFrame, rest: pd.DataFrame, split: np.ndarray
                   ) -> pd.DataFrame:
    """The within table with one row per query: the queries whole in one partition as they are;
    the split ones' additive sums (masses, counts, squares) summed over their partitions and
    their within-query placement sums taken from ``rest`` (their rows together)."""
    on = within[QKEY].isin(split).to_numpy()
    if not on.any():
        return within
    placed = [c for c in within.columns
              if c.startswith(("pos_below_q:", "neg_above_q:", "pos_below_qs:"))]
    parts = within[on].groupby(QKEY, sort=False).sum()
    parts[placed] = rest.groupby(QKEY, sort=False)[placed].sum().reindex(parts.index).to_numpy()
    return pd.concat([within[~on], parts.reset_index()], ignore_index=True)


def _pair_names(labels: list[str], pairs: list[tuple[int, int]]) -> list[tuple[str, str, Any]]:
    """(name, label_k, label_j or None) of every weight pair."""
    return [(labels[k], labels[k], None) if j < 0 else
            (f"{labels[k]}>{labels[j]}", labels[k], labels[j]) for k, j in pairs]


def _assemble(spec: dict, glob_q: list[np.ndarray], within: pd.DataFrame, info: dict,
              offsets: dict, where: str) -> PlacementStats:
    """The per-query (long: scorer × pair × query) and total tables (``glob_q``: per scorer the
    dense global sums of :func:`_pass_place`, rows in ``info["uq"]`` order, then the two moment
    rows)."""
    gcols = global_columns(spec)
    W = within.set_index(QKEY)
    with contextlib.suppress(TypeError):  # ids of mixed types keep their order
        W = W.sort_index()
    qid, names = spec["qid"], _pair_names(spec["labels"], spec["pairs"])
    per_query, totals = [], []
    for si, s in enumerate(spec["scores"]):
        D, G = glob_q[si], len(info["uq"])
        Gq = pd.DataFrame(D[:G], index=pd.Index(info["uq"]), columns=gcols).reindex(
            W.index, fill_value=0.0)
        # the moment rows (kinds 1, 2 of _dask_kernels.KIND)
        Mp, Mn = pd.Series(D[G], index=gcols), pd.Series(D[G + 1], index=gcols)
        exp_q = (None if info["exp"] is None else
                 pd.Series(info["exp"], index=pd.Index(info["uq"])).reindex(W.index).to_numpy())
        for p, (name, _, _) in enumerate(names):
            d = {"scorer": s, "pair": name, "qid": W.index.to_numpy(),
                 "rows": W["rows"].to_numpy(), **{c: W[f"{c}:{p}"].to_numpy() for c in PAIR_STATS},
                 "pos_below": Gq[f"pos_below:{p}"].to_numpy(),
                 "neg_above": Gq[f"neg_above:{p}"].to_numpy()}
            if qid is not None:
                d["pos_below_q"] = W[f"pos_below_q:{p}|{si}"].to_numpy()
                d["neg_above_q"] = W[f"neg_above_q:{p}|{si}"].to_numpy()
            else:
                d["pos_below_q"], d["neg_above_q"] = d["pos_below"], d["neg_above"]
            if spec.get("qscaled"):  # each query on its own power of two (within_part)
                d.update({c: W[f"{c}:{p}"].to_numpy() for c in QSCALED_STATS})
                d["pos_below_qs"] = W[f"pos_below_qs:{p}|{si}"].to_numpy()
                d["exp"] = exp_q
            per_query.append(pd.DataFrame(d))
            tot = {"scorer": s, "pair": name,
                   **{c: float(np.sum(d[c])) for c in PAIR_STATS + SCORER_STATS},
                   "pos2": float(W[f"pos2:{p}"].sum()), "neg2": float(W[f"neg2:{p}"].sum()),
                   "pos2_below2_c": float(Mp[f"pos_below:{p}"]),
                   "pos2_below_c": float(Mp[f"neg_above:{p}"]),
                   "neg2_above2_c": float(Mn[f"pos_below:{p}"]),
                   "neg2_above_c": float(Mn[f"neg_above:{p}"]),
                   "centre_below": float(offsets[s]["centre_below"][p]),
                   "centre_above": float(offsets[s]["centre_above"][p])}
            cb, ca = tot["centre_below"], tot["centre_above"]  # the raw moments, summed back
            tot["pos2_below"] = tot["pos2_below_c"] + cb * tot["pos2"]
            tot["pos2_below2"] = tot["pos2_below2_c"] + cb * (tot["pos2_below_c"]
                                                              + tot["pos2_below"])
            tot["neg2_above"] = tot["neg2_above_c"] + ca * tot["neg2"]
            tot["neg2_above2"] = tot["neg2_above2_c"] + ca * (tot["neg2_above_c"]
                                                              + tot["neg2_above"])
            totals.append(tot)
    pq = pd.concat(per_query, ignore_index=True) if qid is not None else None
    return PlacementStats(
        scores=list(spec["scores"]), labels=list(spec["labels"]), pairs=names, qid=qid,
        weight=spec["weight"], n_rows=info["n"], n_queries=len(W) if qid is not None else None,
        weight_scale=spec["scale"], source=where, per_query=pq,
        totals=pd.DataFrame(totals, columns=["scorer", "pair", *PAIR_STATS, *SCORER_STATS,
                                             *MOMENT_STATS, "centre_below", "centre_above",
                                             *CENTRED_STATS]))
