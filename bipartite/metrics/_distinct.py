"""Exact ranks of scores with few distinct values, without a sort of the rows: the first step
of the table route of the per-query metrics (``bipartite/metrics/_sorted_rows.py``, docs/theory.md
§2, §8).

The distinct values are found with hash tables in the L1 cache: a scatter writes each slot, a
gather checks every row against its slot, and the rows that collide go on to a second and third
table with other constants (:func:`_hash_levels`). A strided sample of ``_SAMPLE`` rows is hashed
first, so that a continuous score is turned down at almost no cost; when the sample holds at
most ``_FEW`` values, the ranks come from comparisons with them instead, after one pass that
checks that every row holds one of them (:class:`Ranks`).

:class:`Ranks` hands the ranks out a chunk at a time, so that a caller that turns them into
table cells (a bincount, compact sort keys) needs no array of the input's size: at 10⁵–10⁶ rows
the page faults of fresh arrays of that size weigh as much as the arithmetic.

The module is private to ``bipartite.metrics``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Ranks", "chunk_rows", "distinct_ranks"]

_U = np.uint64
_HASH_BITS = 12                       # a float64 table of 2^12 slots: 32 KiB, in the L1 cache
_HASH_MULTS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F1)  # odd: one per level
_SAMPLE = 1 << 12                     # rows of the strided sample that rejects a continuous score
_CHUNK = 1 << 16                      # rows per chunk of the passes (temporaries in the L2 cache)
_FEW = 4                              # most distinct values ranked by comparisons, not hashed


def chunk_rows(n: int, chunk: int | None = None) -> int:
    """Rows per chunk of a pass over n rows with scratch arrays: ``chunk``, or at most 2^14
    below 2^18 rows, where the page faults of fresh scratch arrays of 2^16 rows (about 0.5 ms
    per MiB on the machine measured, after a call that freed large arrays: as much as a sort
    of 10⁵ two-valued scores) weigh more than the calls per chunk (2^13 rows: too many calls;
    2^15 rows: still ~30–100 faults per nDCG call in the benchmark's order, 2^14 about 1).
    ``chunk`` None: ``_CHUNK``, the one chunk length of the table passes (read at each call)."""
    chunk = _CHUNK if chunk is None else chunk
    return chunk if n >= 1 << 18 else min(chunk, 1 << 14)


def _slots(x: np.ndarray, mult: int, out: np.ndarray | None = None) -> np.ndarray:
    """Hash slot (intp, below 2^_HASH_BITS) of each float64 of ``x``: the top ``_HASH_BITS``
    bits of its bit pattern times the odd constant ``mult`` (multiplicative hashing; every bit
    of the pattern reaches them); written to the intp array ``out`` if given."""
    h = np.multiply(x.view(_U), _U(mult), out=None if out is None else out.view(_U))
    h >>= _U(64 - _HASH_BITS)
    return h.view(np.intp)


def _hash_levels(x: np.ndarray, cap: int) -> list[tuple[np.ndarray, int, np.ndarray | None]] | None:
    """The distinct values of ``x`` in up to three hash tables, as levels ``(table, mult,
    rows)``: ``table`` (2^_HASH_BITS,) holds one value of the rows hashed to each slot (NaN:
    none) with the constant ``mult``, ``rows`` are the positions of ``x`` hashed at this level
    (None: all; ascending). Each table is written by a scatter and checked by a gather (the
    slots computed again, a chunk at a time: no array of the input's size): the rows whose slot
    holds another value (a hash collision) go on to the next level with another constant, so
    every row ends on a slot holding exactly its value (``==``: 0.0 and −0.0 are one score).
    None past ``cap`` + 1 values in the tables or after the last level's collisions."""
    levels, rows, xs, total = [], None, x, 0
    C = chunk_rows(len(x), _CHUNK)
    h = np.empty(min(len(x), C), dtype=np.intp)
    for mult in _HASH_MULTS:
        tab = np.full(1 << _HASH_BITS, np.nan)
        m = len(xs)
        for a in range(0, m, C):
            c = xs[a : a + C]
            tab[_slots(c, mult, h[: len(c)])] = c
        total += len(tab) - int(np.count_nonzero(np.isnan(tab)))
        if total > cap + 1:  # +1: 0.0 and −0.0, one value, may hold two slots
            return None
        bad = []
        for a in range(0, m, C):
            c = xs[a : a + C]
            b = np.flatnonzero(tab.take(_slots(c, mult, h[: len(c)]), mode="clip") != c)
            if len(b):
                bad.append(b + a)
        levels.append((tab, mult, rows))
        if not bad:
            return levels
        bad = np.concatenate(bad)
        rows = bad if rows is None else rows[bad]
        xs = x[rows]
    return None


def _few_values(x: np.ndarray, k: int) -> np.ndarray | None:
    """The distinct values of ``x`` (ascending) when at most ``k``, else None: the smallest and
    largest of the rows left, then the rows holding neither, a few passes over a small sample
    (cheaper than its hash tables when it holds a handful of values). Its first ``4 k`` rows
    turn a continuous score down first."""
    if len(np.unique(x[: 4 * k])) > k:
        return None
    vals: list[float] = []
    rest = x
    while rest.size:
        if len(vals) >= k:
            return None
        lo, hi = rest.min(), rest.max()
        vals += [lo] if lo == hi else [lo, hi]
        rest = rest[(rest != lo) & (rest != hi)]
    return np.array(sorted(vals)) if len(vals) <= k else None


def _level_values(levels: list[tuple[np.ndarray, int, np.ndarray | None]]) -> np.ndarray:
    """The distinct values (ascending) held in the hash tables of :func:`_hash_levels`."""
    return np.unique(np.concatenate([t[~np.isnan(t)] for t, _, _ in levels]))


class Ranks:
    """Each row's rank among the distinct values of the scores ``s``, a chunk at a time.

    ``Ranks.find(s, cap, descending)`` gives them, or None when ``s`` has more than ``cap``
    distinct values. ``values`` are the distinct values (ascending, or descending) and
    ``chunk(a, b, out)`` writes the rank of rows a..b−1 (``s[i] == values[rank]`` exactly) to the
    intp array ``out``: from comparisons with at most ``_FEW`` values (every row checked to hold
    one of them when found), else from the hash tables (a gather from the level-0 table, then
    the rows that collided there, from the deeper levels).
    """

    def __init__(self, s: np.ndarray, v: np.ndarray, descending: bool,
                 levels: list[tuple[np.ndarray, int, np.ndarray | None]] | None = None):
        self.s, self.descending, self.levels = s, descending, levels
        self.values = v[::-1] if descending else v
        self._v = v
        if levels is not None:  # each level's slot -> rank
            self._rk = []
            for tab, mult, rows in levels:
                rk = np.searchsorted(v, tab)  # empty slots (NaN) sort last: never read
                self._rk.append((len(v) - 1 - rk if descending else rk, mult, rows))

    @classmethod
    def find(cls, s: np.ndarray, cap: int, descending: bool = False) -> Ranks | None:
        """The ranks of ``s`` (module docstring), or None past ``cap`` distinct values."""
        n = len(s)
        if cap < 1 or n == 0:
            return None
        if n > 4 * _SAMPLE:
            sample = s[:: n // _SAMPLE]
            v = _few_values(sample, _FEW)
            if v is None:
                levels = _hash_levels(sample, cap)
                if levels is None:
                    return None
                v = _level_values(levels)
            if len(v) > cap:  # the sample's values are some of the scores'
                return None
            if len(v) <= _FEW:
                few = cls(s, v, descending)
                if few._holds_all():
                    return few
        levels = _hash_levels(s, cap)
        if levels is None:
            return None
        v = _level_values(levels)
        return None if len(v) > cap else cls(s, v, descending, levels)

    def _holds_all(self) -> bool:
        """Whether every row equals one of the few values (``==``: one pass of comparisons per
        value, in bool scratch arrays)."""
        m = min(len(self.s), _CHUNK)  # bool scratch: 64 KiB
        ok, eq = np.empty(m, dtype=bool), np.empty(m, dtype=bool)
        for a in range(0, len(self.s), _CHUNK):
            c = self.s[a : a + _CHUNK]
            o, e = ok[: len(c)], eq[: len(c)]
            np.equal(c, self._v[0], out=o)
            for x in self._v[1:]:
                o |= np.equal(c, x, out=e)
            if not o.all():
                return False
        return True

    def chunk(self, a: int, b: int, out: np.ndarray) -> np.ndarray:
        """The ranks of rows a..b−1, written to ``out`` (intp, b − a) and returned."""
        c = self.s[a:b]
        if self.levels is None:  # comparisons: the values below (ascending) or above the row
            v = self._v
            cmp, ref = (np.less, v[1:]) if self.descending else (np.greater, v[:-1])
            if not len(ref):
                out[:] = 0
                return out
            cmp(c, ref[0], out=out, casting="unsafe")  # written as 0/1: no zeroing pass
            for x in ref[1:]:
                out += cmp(c, x)
            return out
        rk, mult, _ = self._rk[0]
        np.take(rk, _slots(c, mult, out), out=out, mode="clip")  # in place
        for rk, mult, rows in self._rk[1:]:  # the rows that collided: the deepest writes last
            i, j = np.searchsorted(rows, [a, b])
            if i < j:
                out[rows[i:j] - a] = rk.take(_slots(self.s[rows[i:j]], mult))
        return out


def distinct_ranks(s: np.ndarray, cap: int, *, descending: bool = False
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(r, v)``: the distinct values ``v`` of the scores (ascending, or descending) and each
    row's rank ``r`` (n,) intp among them, ``s == v[r]`` exactly; or None when ``s`` has more
    than ``cap`` distinct values (:class:`Ranks`, all chunks at once)."""
    rk = Ranks.find(s, cap, descending)
    if rk is None:
        return None
    r = np.empty(len(s), dtype=np.intp)
    for a in range(0, len(s), _CHUNK):
        rk.chunk(a, min(len(s), a + _CHUNK), r[a : a + _CHUNK])
    return r, rk.values
