"""``bipartite report``: diagnose a file of scores and labels, in memory or out of core on a dask
cluster (a local one it starts and closes, or the running one at ``--scheduler``)."""

from __future__ import annotations

import contextlib
import logging
import os
import sys

__all__ = ["cmd_report"]


def cmd_report(args) -> int:
    from bipartite.diagnostics import MAX_FPR_OUT_OF_CORE, diagnose, is_out_of_core

    if args.out is not None:  # before the work: a file in the path, read-only, no permission
        from bipartite._utils.files import check_output_dir

        check_output_dir(args.out, what="the report folder (--out)")
    data = str(args.file) if str(args.file) == "-" else args.file
    if args.max_fpr is not None and (args.scheduler is not None or is_out_of_core(data)):
        raise ValueError(MAX_FPR_OUT_OF_CORE)  # before a local cluster starts
    with _report_cluster(args, data) as scheduler:
        result = diagnose(data, scores=args.score, labels=args.label, qid=args.qid,
                          weight=args.weight, seed=args.seed, n_boot=args.n_boot,
                          level=args.level, gauc_weighting=args.gauc_weighting,
                          positive_label=args.positive_label, dropna=args.dropna,
                          progress=not args.no_progress, interval=args.interval,
                          scheduler=scheduler, max_fpr=args.max_fpr)
    print({"json": result.to_json, "html": result.to_html}.get(args.format,
                                                                result.to_markdown)())
    if args.out is not None:
        for path in result.save(args.out):
            print(f"wrote {path}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _report_cluster(args, data):
    """The dask scheduler of an out-of-core report: the address of ``--scheduler``, else (a
    folder or glob of Parquet files) a local cluster of ``--workers`` processes with
    ``--memory-limit`` in total, closed afterwards; None in memory."""
    from bipartite.diagnostics import is_out_of_core

    local = args.workers is not None or args.memory_limit is not None
    if args.scheduler is not None:
        if local:
            raise ValueError("--workers and --memory-limit size a local cluster: they do not "
                             f"apply with --scheduler {args.scheduler!r}.")
        yield args.scheduler
        return
    if not is_out_of_core(data):
        if local:
            raise ValueError(f"--workers and --memory-limit apply out of core only (FILE a "
                             f"folder or glob of Parquet files, or --scheduler), got {data}.")
        yield None
        return
    try:
        from dask.utils import parse_bytes
        from distributed import Client
    except ImportError as e:
        raise ValueError(f"An out-of-core report needs dask[distributed] ({e}): pip install "
                         "'dask[distributed]' pyarrow.") from None
    workers = min(os.cpu_count() or 1, 4) if args.workers is None else args.workers
    if workers < 1:
        raise ValueError(f"--workers must be a positive integer, got {workers}.")
    limit = "auto"
    if args.memory_limit is not None:
        try:
            limit = max(1, int(parse_bytes(args.memory_limit)) // workers)
        except (ValueError, TypeError):
            raise ValueError("--memory-limit must be a size such as 2GB or 500MiB, got "
                             f"{args.memory_limit!r}.") from None
    from bipartite._utils.cluster import local_cluster

    with local_cluster(workers, limit, dashboard_address=None, silence_logs=logging.ERROR
                       ) as cluster, Client(cluster) as client:
        yield client

