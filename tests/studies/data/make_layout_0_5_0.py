"""Made the fixture ``layout_0_5_0/`` with bipartite 0.5.0's own runner (one file per task in
``tasks/``): run with PYTHONPATH pointing at a 0.5.0 checkout.

6 tasks; 4 finished (``tasks/<key>.json``), one failed (``tasks/<key>.failed.json``, written
by 0.5.0's ``write_task_record``), one pending (its file removed)."""
import sys
from pathlib import Path

import bipartite
from bipartite.studies import expand_tasks, read_manifest, run_study
from bipartite.studies.execution import failed_record
from bipartite.studies.files import ok_path, write_task_record


def main() -> None:
    assert bipartite.__version__ == "0.5.0", bipartite.__version__
    out = Path(sys.argv[1])
    cfg = {"study": {"function": "demo.binormal_auc", "name": "layout_050", "seed": 7,
                     "replicates": 2}, "params": {"n": 40}, "grid": {"shift": [0.0, 1.0, 2.0]}}
    run_study(cfg, out, jobs=1, progress=False)
    tasks = expand_tasks(read_manifest(out))
    ok_path(out, tasks[1].key).unlink()  # pending
    ok_path(out, tasks[4].key).unlink()  # failed instead
    write_task_record(out, failed_record(tasks[4], RuntimeError("a failure written by 0.5.0")))
    for name in ("results.csv", "results.parquet", "task_index.csv"):
        (out / name).unlink()


if __name__ == "__main__":
    main()
