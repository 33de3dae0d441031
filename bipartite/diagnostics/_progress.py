"""Progress of :func:`bipartite.diagnostics.diagnose` on stderr: a time estimate before the work,
then one tqdm bar over its steps (reading, sorting, placements, win rates, bootstrap), with
tqdm's elapsed and remaining time. Off (no output, no calibration) unless asked for
(``progress=True``; the CLI's default).

The estimate: one ``np.sort`` of 2¹⁷ random floats is timed first (a few ms); a step's cost is
its measured multiple of one sort of the n scores (``n log n`` scaling), measured by
``benchmarks/bench_report.py`` on the report's default path; a file's reading is estimated from
its size. The bar advances in estimated seconds, so its remaining time is re-estimated from the
steps done.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from bipartite.diagnostics._scan import fused

__all__ = ["Progress", "STEP_COST", "WIDE_STEP_COST"]

#: Cost of each step per scorer, in sorts of the n scores (profiled, in CPU time, on the data of
#: benchmarks/bench_report.py, 5·10⁶ rows, two labels, where the whole report is about 10
#: sorts: the global sort and the per-query order ≈ 2.6, the one walk of each order for the
#: labels' and the pairs' placement sums and the near ties ≈ 2.6, the win rates from those
#: sums ≈ 0; bipartite.diagnostics._scan).
STEP_COST = {"sort": 2.6, "placements": 2.6, "pairs": 0.1}
#: The same for label sets past :data:`bipartite.diagnostics._scan.FUSED_ROWS` (the
#: whole-array route: a second sort, the placement sums and the pairs' kernel apart).
WIDE_STEP_COST = {"sort": 3.0, "placements": 4.0, "pairs": 6.0}
#: Seconds per byte of a CSV read (pandas' C parser, about 50 MB/s), per second of the
#: calibration sort (about 5 ms on that machine); Parquet reads count a tenth of it.
_READ_PER_BYTE = 2e-8 / 5e-3


def _sort_seconds() -> float:
    """Seconds of one np.sort of 2**17 random floats (the machine's speed now)."""
    x = np.random.default_rng(0).random(1 << 17)
    best = math.inf
    for _ in range(3):
        t = time.perf_counter()
        np.sort(x)
        best = min(best, time.perf_counter() - t)
    return best


class Progress:
    """A time estimate and a tqdm bar over the steps of a report (all on stderr); inert when
    ``enabled`` is False."""

    def __init__(self, enabled: bool):
        self.on = bool(enabled)
        self.bar = None
        self.unit = _sort_seconds() if self.on else 0.0
        self.costs: dict[str, float] = {}

    def _say(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def reading(self, data: Any) -> Iterator[None]:
        """Around the reading of ``data``: a line with the estimated time when it is a file."""
        if self.on and isinstance(data, str | os.PathLike) and str(data) != "-" and Path(
                data).is_file():
            size = Path(data).stat().st_size
            est = size * _READ_PER_BYTE * self.unit / (1 if str(data).endswith(
                (".csv", ".tsv", ".txt", ".gz")) else 10)
            self._say(f"report: reading {data} ({size / 2**20:.1f} MiB), about {est:.0f} s")
        yield

    def plan(self, n: int, n_scores: int, K: int, qid: bool, n_boot: int, U: int) -> None:
        """Print the estimate of the work ahead and open the bar (n rows, K labels, U units)."""
        if not self.on:
            return
        from tqdm.auto import tqdm

        sort = self.unit * (n * max(math.log2(n), 1)) / ((1 << 17) * 17)
        m = K + K * (K - 1) // 2
        step_cost = STEP_COST if fused(K) else WIDE_STEP_COST
        self.costs = {name: c * sort * (max(m, 2) / 3 if name != "sort" else 1)
                      for name, c in step_cost.items()}
        if not qid:
            self.costs["sort"] /= 2
        self.costs["bootstrap"] = (n_boot * U * ((2 if qid else 1) * K + K * (K - 1) // 2)
                                   * 4e-9 * self.unit / 5e-3)  # AUCs, gAUCs (qid), win rates
        total = n_scores * sum(self.costs[k] for k in STEP_COST) + self.costs["bootstrap"]
        self._say(f"report: {n:,} rows, {n_scores} scorer(s), {K} label(s)"
                  + (f", bootstrap B = {n_boot}" if n_boot else "")
                  + f": about {total:.0f} s")
        self.bar = tqdm(total=total, desc="report", file=sys.stderr, leave=False,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")

    @contextlib.contextmanager
    def step(self, desc: str, kind: str, total: int | None = None
             ) -> Iterator[Callable[[int], None]]:
        """One step: the bar shows ``desc``; it advances by the step's estimated cost, at the
        end or, with ``total`` units (bootstrap replicates), as ``tick(units)`` is called."""
        if self.bar is None:
            yield lambda k: None
            return
        self.bar.set_description_str(desc, refresh=True)
        cost = self.costs.get(kind, 0.0)
        done = [0.0]

        def tick(k: int) -> None:
            inc = cost * k / total
            done[0] += inc
            self.bar.update(inc)

        yield tick
        self.bar.update(max(cost - done[0], 0.0))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
