"""Per-partition kernels of the out-of-core statistics (:mod:`bipartite.diagnostics._dask_passes`;
docs/theory.md §2.3, §7.5; docs/out_of_core.md): top-level functions shipped to the dask
workers, each a NumPy pass over one partition (check, bucket masses, global and within-query
placement sums), and the names of the statistics they return."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bipartite._utils.order_keys import integer_order_key, order_key_out_of_range
from bipartite._utils.validation import check_group_ids, first_index
from bipartite.diagnostics._score_table import qid_problem
from bipartite.metrics import QuerySegments, tie_placements

__all__ = ["CENTRED_STATS", "MOMENT_STATS", "PAIR_STATS", "QSCALED_STATS", "SCORER_STATS",
           "buckets"]

PAIR_STATS = ("pos", "neg", "n_pos", "n_neg")
#: Per-query statistics of a scorer and a weight pair: sums of the global placements
#: (``pos_below`` = Σ pos·below, ``neg_above`` = Σ neg·above) and of the within-query ones
#: (``..._q``).
SCORER_STATS = ("pos_below", "neg_above", "pos_below_q", "neg_above_q")
#: Totals only (the unclustered DeLong variance needs no per-query split): second moments.
MOMENT_STATS = ("pos2_below2", "pos2_below", "pos2", "neg2_above2", "neg2_above", "neg2")
#: The same about the centres ``c_below = θ₀ N`` and ``c_above = θ₀ P`` (θ₀ the AUC binned by
#: the buckets, within about 1/buckets of θ): ``pos2_below2_c`` = Σ pos² (below − c_below)²,
#: ``pos2_below_c`` = Σ pos² (below − c_below), likewise for the negatives. DeLong's variance
#: comes from these (the raw moments lose digits in the expanded square).
CENTRED_STATS = ("pos2_below2_c", "pos2_below_c", "neg2_above2_c", "neg2_above_c")
#: Per-query masses and rows with mass of the weights scaled by each query's own power of two,
#: when the weights span more than 2^400 (:func:`within_part`; with ``pos_below_qs``, the
#: within-query placement sums of those masses): each query's AUC scale-free.
QSCALED_STATS = ("pos_s", "neg_s", "n_pos_s", "n_neg_s")
QKEY = "__qid__"
#: The global query code (position in the run's sorted query ids) of a range-partitioned row.
QCODE = "__qcode__"
#: The most distinct query ids out of core: the range shuffle carries their codes as int32.
MAX_QUERIES = 2**31 - 1


def _masses(df: pd.DataFrame, labels: list[str], weight: str | None, scale: float,
            pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative masses (m, n) of every weight pair: labels, then cross pairs."""
    Y = [df[c].to_numpy(dtype=np.float64) for c in labels]
    w = (np.ones(len(df)) if weight is None else df[weight].to_numpy(dtype=np.float64)) * scale
    return _masses_of(Y, w, pairs)


def _masses_of(Y: list[np.ndarray], w: np.ndarray, pairs: list[tuple[int, int]]
               ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_masses` of the label columns ``Y`` and the scaled weights ``w``."""
    pos = np.empty((len(pairs), len(w)))
    neg = np.empty_like(pos)
    for p, (k, j) in enumerate(pairs):
        if j < 0:
            np.multiply(w, Y[k], out=pos[p])
            np.subtract(w, pos[p], out=neg[p])  # exact: w·y is w or 0
        else:
            np.multiply(w, Y[k] > Y[j], out=pos[p])
            np.multiply(w, Y[j] > Y[k], out=neg[p])
    return pos, neg


def buckets(s: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Bucket of each score: ``2i`` for ``cuts[i−1] < s < cuts[i]``, ``2i + 1`` for
    ``s = cuts[i]`` (``2 len(cuts) + 1`` buckets, ordered by score; equal scores share one)."""
    i = np.searchsorted(cuts, s, side="left")
    hit = cuts[np.minimum(i, len(cuts) - 1)] == s if len(cuts) else np.zeros(len(s), bool)
    return 2 * i + (hit & (i < len(cuts)))


def _qcodes(df: pd.DataFrame, qid: str | None) -> tuple[np.ndarray, pd.Series]:
    """Query codes 0..G−1 of the partition's rows (order of first appearance) and the query ids
    (their dtype kept); one query without ``qid``."""
    if qid is None:
        return np.zeros(len(df), dtype=np.int64), pd.Series([0] * (len(df) > 0), dtype=np.int64)
    codes, _ = pd.factorize(df[qid], sort=False)
    return codes.astype(np.int64), df[qid].drop_duplicates().reset_index(drop=True)


def integer_scores(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """The 64-bit integer score columns ``cols`` as float64 keys in their exact order
    (:func:`bipartite._utils.order_keys.integer_order_key`: integers beyond 2**53, which a
    float64 conversion would round into ties, stay distinct; every statistic uses the scores
    only through their order). A missing value stays missing (:func:`check_part` names it)."""
    keys = {}
    for c in cols:
        na = df[c].isna().to_numpy()
        v = df[c].to_numpy(dtype=np.uint64 if df[c].dtype.kind == "u" else np.int64, na_value=0)
        try:
            k = integer_order_key(v, c)
        except ValueError:
            i = first_index(order_key_out_of_range(v))
            raise ValueError(f"The score column {c!r} holds the integer {int(v[i])}: out of "
                             "core, 64-bit integer scores must lie strictly between "
                             "-(2**63 - 2**52) and 2**63 - 2**52 to be ranked exactly (in memory "
                             "any int64 or uint64 is; or subtract a constant first).") from None
        k[na] = np.nan
        keys[c] = k
    return df.assign(**keys)


def check_part(df: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """One partition's check: the first problem (a message naming the column and value, with
    ``{where}`` for the row, filled in by the driver) and its row in the partition, or None; the
    partition's row count, weight sum, largest and smallest positive weight, and (query ids)
    its queries, their rows and (weights) their largest weights."""
    problem, row = None, -1
    checks = [(s, "score", lambda v: ~np.isfinite(v)) for s in spec["scores"]]
    checks += [(c, "label", lambda v: ~((v == 0) | (v == 1))) for c in spec["labels"]]
    if spec["weight"] is not None:
        checks.append((spec["weight"], "weight", lambda v: ~(np.isfinite(v) & (v >= 0))))
    for col, what, bad_of in checks:
        v = df[col].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(bad_of(v))
        if len(bad):
            row = int(bad[0])
            problem = (f"The {what} column {col!r} must {spec['must'][what]}, got {float(v[row])!r} "
                       f"on {{where}} ({len(bad)} such row(s) in that part).")
            break
    if problem is None and spec["qid"] is not None:  # the report's query-id check
        q = df[spec["qid"]]
        bad = qid_problem(q)
        if bad is not None:
            row, must, got = bad
            problem = f"The qid column {spec['qid']!r} must {must}, got {got} on {{where}}."
        elif q.dtype == object:
            try:
                check_group_ids(q.to_numpy(), "qid")
            except (TypeError, ValueError) as e:
                row, problem = 0, f"The qid column {spec['qid']!r} on {{where}} and after: {e}"
    w_sum, w_max, w_low = float(len(df)), 1.0, 1.0
    if spec["weight"] is not None and problem is None:
        v = df[spec["weight"]].to_numpy(dtype=np.float64)
        w_sum, w_max = float(v.sum()), float(v.max(initial=0.0))
        w_low = float(v.min(initial=np.inf, where=v > 0))
    qids = qrows = qtop = None
    if spec["qid"] is not None and problem is None:  # which queries the partition holds
        vc = df[spec["qid"]].value_counts(sort=False)
        qids, qrows = vc.index.to_numpy(), vc.to_numpy()
        if spec["weight"] is not None:  # each query's largest weight (its power of two)
            qtop = df[spec["weight"]].groupby(df[spec["qid"]], sort=False, observed=True).max(
                ).reindex(vc.index).to_numpy(dtype=np.float64)
    return pd.DataFrame({"n": [len(df)], "w_sum": [w_sum], "w_max": [w_max], "w_low": [w_low],
                         "problem": [problem], "row": [row], "qids": [qids], "qrows": [qrows],
                         "qtop": [qtop]})


def split_rows(df: pd.DataFrame, qid: str, split: np.ndarray, keep: bool) -> pd.DataFrame:
    """The rows of the queries ``split`` (``keep``; those met in several partitions), or the
    others (every query whole in this partition)."""
    inside = df[qid].isin(split).to_numpy()
    return df[inside if keep else ~inside]


def bucket_mass(df: pd.DataFrame, spec: dict, cuts: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per scorer and bucket of its score: the rows and the positive and negative mass of every
    pair (the masses built once for all scorers)."""
    pos, neg = _masses(df, spec["labels"], spec["weight"], spec["scale"], spec["pairs"])
    out = []
    for si, score in enumerate(spec["scores"]):
        b = buckets(df[score].to_numpy(dtype=np.float64), cuts[score])
        nb = 2 * len(cuts[score]) + 1
        cols = {"rows": np.bincount(b, minlength=nb).astype(np.float64)}
        for p in range(len(pos)):
            cols[f"pos:{p}"] = np.bincount(b, pos[p], minlength=nb)
            cols[f"neg:{p}"] = np.bincount(b, neg[p], minlength=nb)
        out.append(pd.DataFrame({"scorer": si, "bucket": np.arange(nb), **cols}))
    return pd.concat(out, ignore_index=True)


def query_codes(values: Any, uq: np.ndarray) -> np.ndarray:
    """Global query codes: the positions of ``values`` in the run's query ids ``uq`` (sorted when
    numeric: a binary search, no hash table of all ids per partition)."""
    v = np.asarray(values)
    if uq.dtype.kind in "iuf" and v.dtype.kind in "iuf":
        return np.searchsorted(uq, v).astype(np.int64)
    return pd.Index(uq).get_indexer(values).astype(np.int64)


def range_rows(df: pd.DataFrame, spec: dict, score: str, cuts: np.ndarray, part_of: np.ndarray,
               uq: np.ndarray | None) -> pd.DataFrame:
    """The rows of the range buckets (even bucket of ``score``), narrowed to what the
    range-partitioned frame needs (the score, each label as uint8, the weight, the global query
    code ``QCODE`` as int32), with their target partition ``_partitions`` (``part_of[bucket]``:
    a contiguous run of whole range buckets per partition, moved there by one shuffle)."""
    s = df[score].to_numpy(dtype=np.float64)
    b = buckets(s, cuts)
    sel = np.flatnonzero(b % 2 == 0)
    cols = {score: s.take(sel)}
    for c in spec["labels"]:
        cols[c] = df[c].to_numpy(dtype=np.uint8).take(sel)
    if spec["weight"] is not None:
        cols[spec["weight"]] = df[spec["weight"]].to_numpy(dtype=np.float64).take(sel)
    if spec["qid"] is not None:
        cols[QCODE] = query_codes(df[spec["qid"]].to_numpy().take(sel), uq).astype(np.int32)
    cols["_partitions"] = part_of.take(b.take(sel))
    return pd.DataFrame(cols)


def range_meta(spec: dict, score: str) -> pd.DataFrame:
    """The empty frame of :func:`range_rows`."""
    cols = {score: pd.Series([], dtype=np.float64),
            **{c: pd.Series([], dtype=np.uint8) for c in spec["labels"]}}
    if spec["weight"] is not None:
        cols[spec["weight"]] = pd.Series([], dtype=np.float64)
    if spec["qid"] is not None:
        cols[QCODE] = pd.Series([], dtype=np.int32)
    cols["_partitions"] = pd.Series([], dtype=np.int32)
    return pd.DataFrame(cols)


def _frame_of(uniq: pd.Series, sums: dict[str, np.ndarray], order: list[str],
              moments: dict[str, float] | None = None) -> pd.DataFrame:
    """Per-query sums (one value per query of ``uniq``) as a frame keyed by query id;
    ``moments`` (totals only) ride on the first query's row, so that summing by query sums
    them too."""
    cols = {}
    for name in order:
        if name in sums:
            cols[name] = sums[name]
        else:
            cols[name] = col = np.zeros(len(uniq))
            col[:1] = (moments or {}).get(name, 0.0)
    # one constructor call: inserting column by column rebuilds the column index every time
    return pd.DataFrame({QKEY: uniq.to_numpy() if uniq.dtype == object else uniq.array, **cols})


def _cols(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``a[:, idx]`` (numpy's 2-D fancy index is many times slower than ``take``)."""
    return np.take(a, idx, axis=1)


def point_part(df: pd.DataFrame, spec: dict, score: str, cuts: np.ndarray,
               offsets: dict[str, np.ndarray], uq: np.ndarray | None) -> pd.DataFrame:
    """Per-query sums of the global placements of the rows of one input partition in the point
    buckets of ``score`` (every such row ties with its whole bucket: closed form, in place; the
    other rows are dropped) keyed by the global query code, and the totals of the centred second
    moments (:func:`_global_frame`)."""
    cols_out = global_columns(spec)
    b = buckets(df[score].to_numpy(dtype=np.float64), cuts)
    sel = np.flatnonzero(b % 2 == 1)
    df, b = df.iloc[sel], b.take(sel)
    codes, uniq = _qcodes(df, spec["qid"])
    if spec["qid"] is not None:  # the partition's query ids -> the run's global codes
        uniq = pd.Series(query_codes(uniq.to_numpy(), uq))
    if len(df) == 0:
        return _global_frame(uniq, dict.fromkeys(cols_out, np.zeros(0)), {}, cols_out)
    sums, mom = {}, {}
    pos, neg = _masses(df, spec["labels"], spec["weight"], spec["scale"], spec["pairs"])
    below = _cols(offsets["neg_below"], b) + 0.5 * _cols(offsets["neg"], b)
    above = _cols(offsets["pos_above"], b) + 0.5 * _cols(offsets["pos"], b)
    for p in range(len(pos)):
        _global_terms(sums, mom, p, codes, len(uniq), pos[p], neg[p], below[p], above[p],
                      offsets)
    return _global_frame(uniq, sums, mom, cols_out)


def range_part(df: pd.DataFrame, spec: dict, score: str, cuts: np.ndarray,
               offsets: dict[str, np.ndarray], G: int) -> pd.DataFrame:
    """Dense per-query sums of the global placements of one range partition (frame of
    :func:`range_rows`: a contiguous run of whole range buckets lo..hi, rows in any order), as
    one (columns of :func:`global_columns`) × (G + 2) array held in a one-row frame (column
    ``dense``): entry g < G the sums of the query with global code g, entries G and G + 1 the
    totals of the centred second moments (the layout of the kinds 1 and 2 of
    :func:`_global_frame`). One sort by
    score; a row's placement is its mass below within the partition (cumulative sums over the
    sorted rows, ½ its tie group), plus the mass below the run and that of the point buckets
    inside it below the row; likewise above. Summed over partitions by :func:`sum_dense`."""
    cols_out = global_columns(spec)
    out = np.zeros((len(cols_out), G + 2))
    if len(df) == 0:
        return pd.DataFrame({"dense": [out]})
    s = df[score].to_numpy(dtype=np.float64)
    b = buckets(s, cuts)
    lo, hi = int(b.min()), int(b.max())
    counts = np.bincount(b - lo, minlength=hi - lo + 1)
    if lo % 2 or hi % 2 or not np.array_equal(counts[::2], offsets["rows"][lo:hi + 1:2]):
        raise RuntimeError(f"internal: the range partition [{lo}, {hi}] does not hold whole "
                           "range buckets")
    seg = QuerySegments(s, check_input=False)
    o, n = seg.order, len(df)
    codes = (np.zeros(n, dtype=np.int64) if spec["qid"] is None else
             df[QCODE].to_numpy().take(o))
    w = df[spec["weight"]].to_numpy(dtype=np.float64) * spec["scale"] if spec["weight"] else None
    # the masses in score order, from the labels and weights gathered once
    ps, ns = _masses_of([df[c].to_numpy().take(o) for c in spec["labels"]],
                        np.ones(n) if w is None else w.take(o), spec["pairs"])
    ties = len(seg.starts) < n  # per tie group, then repeated to its rows
    Gp = np.add.reduceat(ps, seg.starts, axis=1) if ties else ps
    Gn = np.add.reduceat(ns, seg.starts, axis=1) if ties else ns
    below, above = tie_placements(Gp, Gn)
    if ties:
        sizes = np.diff(np.r_[seg.starts, n])
        below, above = np.repeat(below, sizes, axis=1), np.repeat(above, sizes, axis=1)
    # rows in score order run through the buckets lo..hi in order: the offsets per bucket
    npt, ppt = offsets["neg_pt_below"], offsets["pos_pt_above"]
    below += np.repeat(offsets["neg_below"][:, [lo]] - npt[:, [lo]] + npt[:, lo:hi + 1], counts,
                       axis=1)
    above += np.repeat(offsets["pos_above"][:, [hi]] - ppt[:, [hi]] + ppt[:, lo:hi + 1], counts,
                       axis=1)
    sums, mom = {}, {}
    for p in range(len(ps)):
        _global_terms(sums, mom, p, codes, G, ps[p], ns[p], below[p], above[p], offsets)
    for c, name in enumerate(cols_out):
        out[c, :G] = sums[name]
        kind, p = name.split(":")
        out[c, G:] = ((mom[f"pos2_below2_c:{p}"], mom[f"neg2_above2_c:{p}"]) if kind == "pos_below"
                      else (mom[f"pos2_below_c:{p}"], mom[f"neg2_above_c:{p}"]))
    return pd.DataFrame({"dense": [out]})


def sum_dense(frame: pd.DataFrame) -> pd.DataFrame:
    """The sum of the dense arrays of :func:`range_part` in the rows of ``frame`` (a tree
    reduction's combine step: arrays added in place, no hashing, no stacked copy)."""
    arrs = [a for a in frame["dense"] if isinstance(a, np.ndarray)]
    if not arrs:
        return pd.DataFrame({"dense": pd.Series([], dtype=object)})
    total = arrs[0].copy()
    for a in arrs[1:]:
        total += a
    return pd.DataFrame({"dense": [total]})


#: ``KIND`` of the rows of a global table: a query's sums (0); the totals of the centred
#: second moments of the positives (1: ``pos2_below2_c`` in the ``pos_below`` column,
#: ``pos2_below_c`` in ``neg_above``) and of the negatives (2: ``neg2_above2_c``,
#: ``neg2_above_c``), one such row per partition (summed on the driver).
KIND = "__kind__"


def _global_frame(uniq: pd.Series, sums: dict[str, np.ndarray], mom: dict[str, float],
                  cols: list[str]) -> pd.DataFrame:
    """Per-query sums keyed by (:data:`KIND` 0, query id), then (non-empty partitions) the two
    moment rows (kinds 1 and 2, keyed by the first query): 2 columns per pair, not 6 (the
    moments are totals: a column each would be zeros but for one row)."""
    G = len(uniq)
    kind = np.zeros(G + (2 if G else 0), dtype=np.int64)
    if G:
        kind[G:] = (1, 2)
        uniq = pd.concat([uniq, uniq.iloc[:1].repeat(2)], ignore_index=True)
    out = {}
    for c in cols:
        name, p = c.split(":")
        first, second = (("pos2_below2_c", "neg2_above2_c") if name == "pos_below" else
                         ("pos2_below_c", "neg2_above_c"))
        extra = [mom[f"{first}:{p}"], mom[f"{second}:{p}"]] if G else []
        out[c] = np.concatenate([sums[c], extra]) if G else sums[c]
    return pd.DataFrame({KIND: kind, QKEY: uniq.to_numpy() if uniq.dtype == object else uniq.array,
                         **out})


def _global_terms(sums: dict, mom: dict, p: int, codes: np.ndarray, G: int, pos: np.ndarray,
                  neg: np.ndarray, below: np.ndarray, above: np.ndarray, offsets: dict) -> None:
    """Pair ``p``'s per-query Σ pos·below, Σ neg·above and its centred second moments."""
    sums[f"pos_below:{p}"] = np.bincount(codes, pos * below, minlength=G)
    sums[f"neg_above:{p}"] = np.bincount(codes, neg * above, minlength=G)
    x = pos * (below - offsets["centre_below"][p])
    y = neg * (above - offsets["centre_above"][p])
    mom[f"pos2_below2_c:{p}"], mom[f"pos2_below_c:{p}"] = float(x @ x), float(pos @ x)
    mom[f"neg2_above2_c:{p}"], mom[f"neg2_above_c:{p}"] = float(y @ y), float(neg @ y)


def within_part(df: pd.DataFrame, spec: dict, place: bool, uq: np.ndarray | None = None,
                exp: np.ndarray | None = None) -> pd.DataFrame:
    """Per-query masses, rows with mass, Σ pos², Σ neg² and (``place``: every query whole in
    this partition) the sums of the within-query placements of every scorer, by cumulative sums
    over one (query, score) sort per scorer (the per-query sums then come from the first
    scorer's sorted masses, each query's rows a contiguous segment: no bincount).

    With ``spec["qscaled"]`` (weights spanning more than 2^400), also the masses, rows with
    mass and ``pos_below_q`` of the weights scaled by each query's own power of two ``exp``
    (per run query id ``uq``; :func:`bipartite.metrics.query_scaled`'s, columns ``…_s`` and
    ``pos_below_qs``): each query's AUC scale-free, as in memory."""
    codes, uniq = _qcodes(df, spec["qid"])
    cols_out = within_columns(spec, place)
    G = len(uniq)
    if len(df) == 0:
        return _frame_of(uniq, dict.fromkeys(cols_out, np.zeros(0)), cols_out)
    sums: dict[str, np.ndarray] = {}
    if not place:
        pos, neg = _masses(df, spec["labels"], spec["weight"], spec["scale"], spec["pairs"])
        sums["rows"] = np.bincount(codes, minlength=G).astype(np.float64)  # zero weights too
        for p in range(len(pos)):
            for name, v in (("pos", pos[p]), ("neg", neg[p]), ("n_pos", pos[p] > 0),
                            ("n_neg", neg[p] > 0), ("pos2", pos[p] ** 2),
                            ("neg2", neg[p] ** 2)):
                sums[f"{name}:{p}"] = np.bincount(codes, v, minlength=G)
        return _frame_of(uniq, sums, cols_out)
    Y = [df[c].to_numpy(dtype=np.float64) for c in spec["labels"]]
    w = (None if spec["weight"] is None else
         df[spec["weight"]].to_numpy(dtype=np.float64) * spec["scale"])
    weights = [("", w)]  # (column suffix, row weights): the run's scale, then each query's
    if spec.get("qscaled"):
        e = exp[query_codes(uniq.to_numpy(), uq)]
        weights.append(("s", np.ldexp(df[spec["weight"]].to_numpy(dtype=np.float64),
                                      -e[codes])))
    for si, s in enumerate(spec["scores"]):
        seg = QuerySegments(df[s].to_numpy(dtype=np.float64), codes, check_input=False)
        o = seg.order
        Yo = [y.take(o) for y in Y]  # the labels in (query, score) order, gathered once
        if si == 0:  # each query's rows are one segment of this order, codes 0..G-1 in turn
            first = seg.starts[np.flatnonzero(np.r_[True, seg.tie_query[1:]
                                                    != seg.tie_query[:-1]])]
            sums["rows"] = np.diff(np.r_[first, len(o)]).astype(np.float64)
        for tag, wv in weights:
            ps, ns = _masses_of(Yo, np.ones(len(o)) if wv is None else wv.take(o),
                                spec["pairs"])
            A, B = _within_sums(ps, ns, seg.starts, seg.tie_query)
            for p in range(len(ps)):  # every code 0..G-1 has rows here, in ascending order
                if tag:
                    sums[f"pos_below_qs:{p}|{si}"] = A[p]
                else:
                    sums[f"pos_below_q:{p}|{si}"], sums[f"neg_above_q:{p}|{si}"] = A[p], B[p]
            if si == 0:
                moments = [("pos2", ps * ps), ("neg2", ns * ns)] if not tag else []
                for name, v in [("pos", ps), ("neg", ns),
                                ("n_pos", (ps > 0).astype(np.float64)),
                                ("n_neg", (ns > 0).astype(np.float64)), *moments]:
                    r = np.add.reduceat(v, first, axis=1)
                    for p in range(len(ps)):
                        sums[f"{name}{'_' + tag if tag else ''}:{p}"] = r[p]
    return _frame_of(uniq, sums, cols_out)


def _within_sums(ps: np.ndarray, ns: np.ndarray, starts: np.ndarray, gcodes: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per query, ``Σ pos·below`` and ``Σ neg·above`` with the within-query placements, from
    the masses ``ps``, ``ns`` (m, n) in (query, score) order, the starts of its tie groups
    (which never cross queries) and each group's query code ``gcodes``: per tie group g of
    query q, ``below_g = (negative mass of q before g) + ½ (g's)``, ``above_g = (positive mass
    of q after g) + ½ (g's)``, summed over the groups (no per-row gather). The sums over the
    earlier (later) groups of the same query are :func:`bipartite.metrics.segment_below`'s (on
    the reversed order for ``above``; :func:`bipartite.metrics.tie_placements`): a light query
    next to heavy ones keeps its digits."""
    ng = len(starts)
    Gp = np.add.reduceat(ps, starts, axis=1) if ng < ps.shape[1] else ps
    Gn = np.add.reduceat(ns, starts, axis=1) if ng < ns.shape[1] else ns
    qfirst = np.flatnonzero(np.r_[True, gcodes[1:] != gcodes[:-1]])
    below, above = tie_placements(Gp, Gn, qfirst)
    below *= Gp
    above *= Gn
    return np.add.reduceat(below, qfirst, axis=1), np.add.reduceat(above, qfirst, axis=1)


def within_columns(spec: dict, place: bool) -> list[str]:
    m = len(spec["pairs"])
    cols = ["rows"] + [f"{n}:{p}" for p in range(m)
                       for n in ("pos", "neg", "n_pos", "n_neg", "pos2", "neg2")]
    if place:
        cols += [f"{n}:{p}|{si}" for si in range(len(spec["scores"])) for p in range(m)
                 for n in ("pos_below_q", "neg_above_q")]
    if place and spec.get("qscaled"):  # each query on its own power of two (within_part)
        cols += [f"{n}:{p}" for p in range(m) for n in QSCALED_STATS]
        cols += [f"pos_below_qs:{p}|{si}" for si in range(len(spec["scores"])) for p in range(m)]
    return cols


def global_columns(spec: dict) -> list[str]:
    return [f"{n}:{p}" for p in range(len(spec["pairs"])) for n in ("pos_below", "neg_above")]


def meta_frame(qmeta: Any, cols: list[str]) -> pd.DataFrame:
    m = pd.DataFrame({QKEY: pd.Series([], dtype=qmeta)})
    for c in cols:
        m[c] = pd.Series([], dtype=np.float64)
    return m

