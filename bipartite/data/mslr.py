"""An MSLR-shaped LETOR file generator for scale tests (docs/theory.md §10).
"""


from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import special
from sklearn.utils import Bunch

from bipartite._utils.validation import (
    check_array,
    check_random_state,
    check_real,
)

# ================================================================================================
# MSLR-shaped generator
# ================================================================================================

#: Approximate MSLR-WEB30K relevance frequencies for grades 0..4.
MSLR_RELEVANCE_PROBS = (0.514, 0.325, 0.134, 0.019, 0.008)
#: Default P(f134 > 0 | grade) of the generator (query-url click count positive).
MSLR_CLICK_RATES = (0.05, 0.15, 0.35, 0.55, 0.70)
#: Decimals written per feature (0: integer-valued count feature, 6: real-valued), MSLR layout.
_MSLR_DECIMALS = np.zeros(136, dtype=np.int64)
for _a, _b in ((6, 10), (16, 20), (36, 125), (130, 130), (136, 136)):
    _MSLR_DECIMALS[_a - 1 : _b] = 6
_MSLR_DECIMALS[96 - 1 : 100] = 0  # boolean model is 0/1


def _mslr_chunk_features(
    rng: np.random.Generator, g: np.ndarray, qrow: np.ndarray, n_q: int, click_rates: np.ndarray
) -> np.ndarray:
    """(m, 136) feature values for ``m`` rows of ``n_q`` queries (``qrow`` = local query index
    per row), following the MSLR feature groups; integer features are integer-valued.

    A latent document quality ``z = 0.8 g + query offset + N(0, 1)`` drives the text-matching
    features; the click features 134-136 depend on the grade (``click_rates``).
    """
    m = len(g)
    F = np.empty((m, 136))
    qlen_q = 1 + rng.binomial(4, 0.4, size=n_q)
    qlen = qlen_q[qrow].astype(np.float64)
    z = 0.8 * g + 0.3 * rng.standard_normal(n_q)[qrow] + rng.standard_normal(m)
    off = np.array([0.5, -1.0, -0.5, -1.5, 0.8])
    cover = rng.binomial(qlen_q[qrow][:, None], special.expit(0.6 * z[:, None] + off[None, :]))
    F[:, 0:5] = cover  # 1-5 covered query term number
    F[:, 5:10] = cover / qlen[:, None]  # 6-10 covered query term ratio
    length = np.column_stack([
        np.floor(rng.lognormal(6.0, 0.8, m)),
        np.floor(rng.lognormal(1.5, 1.5, m)) * (rng.random(m) < 0.7),
        1 + rng.poisson(7, m),
        1 + rng.poisson(5, m),
        np.zeros(m),
    ])
    length[:, 4] = length[:, :4].sum(axis=1)
    F[:, 10:15] = length  # 11-15 stream length
    idf = rng.gamma(2.0, 2.5, size=(n_q, 5))[qrow]
    F[:, 15:20] = idf  # 16-20 IDF
    lam = cover * np.minimum(1 + length / 100.0, 50.0) * np.exp(np.minimum(0.2 * z, 3.0))[:, None]
    tf_sum = rng.poisson(lam).astype(np.float64)
    tf_mean = tf_sum / qlen[:, None]
    u1, u2 = rng.random((m, 5)), rng.random((m, 5))
    tf_min = np.floor(tf_mean * u1)
    tf_max = np.ceil(tf_mean * (1 + u2))
    tf_var = (tf_max - tf_min) ** 2 / 4.0 * u1
    stats5 = (tf_sum, tf_min, tf_max, tf_mean, tf_var)
    for i, a in enumerate(stats5):
        F[:, 20 + 5 * i : 25 + 5 * i] = a  # 21-45 tf sum/min/max/mean/var
        F[:, 45 + 5 * i : 50 + 5 * i] = a / np.maximum(length, 1.0)  # 46-70 normalised tf
        F[:, 70 + 5 * i : 75 + 5 * i] = a * (idf**2 if i == 4 else idf)  # 71-95 tf*idf
    F[:, 95:100] = cover == qlen[:, None]  # 96-100 boolean model
    F[:, 100:105] = special.expit(0.5 * z[:, None] - 1 + rng.standard_normal((m, 5))) * (
        cover / qlen[:, None]
    )  # 101-105 vector space model
    sat = tf_sum / (tf_sum + 1.5)
    F[:, 105:110] = np.maximum(
        3.0 * idf * (cover / qlen[:, None]) * sat + 0.3 * rng.standard_normal((m, 5)), 0.0
    )  # 106-110 BM25
    for i in range(3):  # 111-125 LMIR.ABS / DIR / JM (negative log-likelihoods)
        F[:, 110 + 5 * i : 115 + 5 * i] = -(
            qlen[:, None] * (6.0 + rng.gamma(2.0, 1.0, (m, 5))) - 1.5 * cover * sat
        )
    F[:, 125] = 1 + rng.poisson(2, m)  # 126 slash count
    F[:, 126] = 15 + rng.poisson(35, m)  # 127 url length
    F[:, 127] = np.floor(rng.lognormal(1.0 + 0.3 * np.minimum(z, 6.0), 1.5))  # 128 inlinks
    F[:, 128] = rng.poisson(30, m)  # 129 outlinks
    F[:, 129] = rng.lognormal(3.0, 1.0, m)  # 130 PageRank
    F[:, 130] = rng.poisson(40, m)  # 131 SiteRank
    F[:, 131] = np.clip(np.round(50 + 8 * z + 10 * rng.standard_normal(m)), 0, 255)  # 132
    F[:, 132] = np.clip(np.round(40 + 5 * z + 15 * rng.standard_normal(m)), 0, 255)  # 133
    clicked = rng.random(m) < click_rates[g]
    f134 = clicked * (1 + rng.poisson(1.0 + 0.5 * g))
    F[:, 133] = f134  # 134 query-url click count
    F[:, 134] = f134 + rng.poisson(3.0 * np.exp(np.clip(0.3 * z, -3.0, 3.0)))  # 135 url clicks
    F[:, 135] = f134 * rng.lognormal(3.5 + 0.2 * g, 0.8)  # 136 url dwell time
    return F


def _digit_field(q: np.ndarray, dec: int) -> np.ndarray:
    """Bytes of the integers ``q`` (values scaled by ``10**dec``) written as ``[-]int[.frac]``,
    as an (m, w) uint8 array with 0 marking absent bytes (sign, leading zeros)."""
    m = len(q)
    neg = q < 0
    mag = np.abs(q)
    ip, fp = np.divmod(mag, 10**dec)
    D = len(str(int(ip.max()))) if m else 1
    pw = 10 ** np.arange(D - 1, -1, -1, dtype=np.int64)
    digs = (ip[:, None] // pw) % 10 + 48
    keep = (ip[:, None] >= pw) | (pw == 1)[None, :]
    pieces = [np.where(neg, 45, 0)[:, None], np.where(keep, digs, 0)]
    if dec:
        pwf = 10 ** np.arange(dec - 1, -1, -1, dtype=np.int64)
        pieces += [np.full((m, 1), 46), (fp[:, None] // pwf) % 10 + 48]
    return np.concatenate(pieces, axis=1).astype(np.uint8)


def _const_field(text: bytes, m: int) -> np.ndarray:
    return np.broadcast_to(np.frombuffer(text, dtype=np.uint8), (m, len(text)))


def _format_letor_block(
    relevance: np.ndarray, qid: np.ndarray, values: np.ndarray, decimals: np.ndarray
) -> bytes:
    """LETOR lines ``rel qid:Q 1:v … p:v`` for a block of rows, vectorised.

    Values are rounded to ``decimals[j]`` places (0: written as an integer, else fixed-point with
    exactly that many decimals). Every field is built as fixed-width digit bytes with 0 for absent
    bytes, and the block is compacted in one boolean mask.
    """
    m, p = values.shape
    pieces = [_digit_field(relevance.astype(np.int64), 0), _const_field(b" qid:", m),
              _digit_field(qid.astype(np.int64), 0)]
    for j in range(p):
        d = int(decimals[j])
        scaled = np.rint(values[:, j] * 10.0**d).astype(np.int64)
        pieces += [_const_field(b" %d:" % (j + 1), m), _digit_field(scaled, d)]
    pieces.append(_const_field(b"\n", m))
    buf = np.concatenate(pieces, axis=1)
    return buf[buf != 0].tobytes()


def make_mslr_like(
    path: str | os.PathLike,
    *,
    n_queries: int = 30000,
    docs_per_query: float = 75.7,
    relevance_probs: Sequence[float] = MSLR_RELEVANCE_PROBS,
    click_rates: Sequence[float] = MSLR_CLICK_RATES,
    seed: int | np.random.Generator = 0,
    chunk_rows: int = 20000,
) -> Bunch:
    """Write an MSLR-WEB-shaped LETOR file (docs/theory.md §10) for scale tests; returns a summary.

    ``n_queries`` queries with ``qid:1 … qid:n_queries``; query sizes ``1 + NegBin(r=2, mean =
    docs_per_query − 1)`` (the default gives ~2.27M rows for 30000 queries); relevance 0–4
    i.i.d. with ``relevance_probs`` (MSLR-WEB30K frequencies); 136 features following the MSLR
    groups (integer counts written as integers, real-valued features with 6 decimals, LMIR
    features negative), driven by a latent quality that increases with relevance; click features
    134 (query-url click count, positive with probability ``click_rates[g]``), 135 (url click
    count ≥ f134) and 136 (dwell time, 0 iff f134 = 0). Written in chunks of about
    ``chunk_rows`` rows (whole queries), so memory stays ~O(chunk_rows · 136); reproducible for
    given ``(seed, chunk_rows)``.

    Returns
    -------
    Bunch with ``path``, ``n_queries``, ``n_rows``, ``n_bytes``, ``relevance_counts`` (5,),
    ``click_counts`` (5,) rows with f134 > 0 per grade.

    >>> import tempfile, pathlib
    >>> from bipartite.data import load_letor
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     s = make_mslr_like(pathlib.Path(tmp) / "m.txt", n_queries=5, seed=0)
    ...     d = load_letor(s.path)
    >>> d.X.shape[1], d.click_source.split(":")[0], len(set(d.qid))
    (133, 'feature', 5)
    """
    if isinstance(n_queries, bool) or not isinstance(n_queries, (int, np.integer)) or n_queries < 1:
        raise ValueError(f"The 'n_queries' parameter must be a positive integer, got {n_queries!r}.")
    dpq = check_real(docs_per_query, "docs_per_query")
    if not (math.isfinite(dpq) and dpq >= 1):
        raise ValueError(f"The 'docs_per_query' parameter must be >= 1, got {docs_per_query!r}.")
    probs = check_array(relevance_probs, "relevance_probs", ndim=1)
    if len(probs) != 5 or np.any(probs < 0) or abs(probs.sum() - 1) > 1e-6:
        raise ValueError(
            "The 'relevance_probs' parameter must be 5 non-negative numbers summing to 1 "
            f"(grades 0..4), got {list(relevance_probs)!r}."
        )
    rates = check_array(click_rates, "click_rates", ndim=1)
    if len(rates) != 5 or np.any((rates < 0) | (rates > 1)):
        raise ValueError(
            f"The 'click_rates' parameter must be 5 probabilities (grades 0..4), got "
            f"{list(click_rates)!r}."
        )
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) or (
        chunk_rows < 1
    ):
        raise ValueError(f"The 'chunk_rows' parameter must be a positive integer, got {chunk_rows!r}.")
    path = Path(path)
    rng = check_random_state(seed)
    extra = dpq - 1.0
    if extra > 0:
        r_nb = 2.0
        sizes = 1 + rng.negative_binomial(r_nb, r_nb / (r_nb + extra), size=int(n_queries))
    else:
        sizes = np.ones(int(n_queries), dtype=np.int64)
    ends = np.cumsum(sizes)
    # Chunk boundaries at whole queries: the last query whose rows end within each chunk_rows.
    cuts = np.unique(np.searchsorted(ends, np.arange(chunk_rows, ends[-1], chunk_rows), "right"))
    bounds = [0, *[int(c) for c in cuts if 0 < c < n_queries], int(n_queries)]
    chunk_rngs = rng.spawn(len(bounds) - 1)
    rel_counts = np.zeros(5, dtype=np.int64)
    click_counts = np.zeros(5, dtype=np.int64)
    n_bytes = 0
    with open(path, "wb") as fh:
        for (q0, q1), crng in zip(zip(bounds[:-1], bounds[1:], strict=True), chunk_rngs, strict=True):
            sz = sizes[q0:q1]
            qrow = np.repeat(np.arange(q1 - q0), sz)
            g = crng.choice(5, size=len(qrow), p=probs / probs.sum())
            F = _mslr_chunk_features(crng, g, qrow, q1 - q0, rates)
            block = _format_letor_block(g, qrow + q0 + 1, F, _MSLR_DECIMALS)
            fh.write(block)
            n_bytes += len(block)
            rel_counts += np.bincount(g, minlength=5)
            click_counts += np.bincount(g[F[:, 133] > 0], minlength=5)
    return Bunch(
        path=str(path),
        n_queries=int(n_queries),
        n_rows=int(sizes.sum()),
        n_bytes=n_bytes,
        relevance_counts=rel_counts,
        click_counts=click_counts,
    )
