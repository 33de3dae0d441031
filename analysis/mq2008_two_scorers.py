"""Two scorers on LETOR 4.0 MQ2008 for ``bipartite report`` (README, "Diagnose your own ranker").

XGBoost rankers with loss aggregation and with label aggregation, trained on parts S1-S4 and
scored on S5; labels: relevant = 1[grade >= 1] and a click from the seeded position-based model
of :func:`bipartite.data.load_letor`. The data is found through the data setting
(``BIPARTITE_DATA``, then ``../shared/data``). Usage::

    python analysis/mq2008_two_scorers.py OUT.csv
    bipartite report OUT.csv --score xgb_loss_agg --score xgb_label_agg \
        --label relevant --label click --qid qid --seed 0 --out DIR
"""
import sys

import numpy as np
import pandas as pd

from bipartite.data import data_dir, load_letor
from bipartite.data.letor import letor4_parts
from bipartite.learners import XGBRanker

target = sys.argv[1] if len(sys.argv) > 1 else "mq2008_S5_scores.csv"

folder = data_dir() / "letor"
files = letor4_parts(folder)
if files is None:
    sys.exit(f"MQ2008 parts mq2008_S1..S5.txt are not all in {folder} (see ../shared/data/README.md)")
parts = [load_letor(f) for f in files]
tr, te = parts[:4], parts[4]
X = np.vstack([p.X for p in tr])
Y = np.vstack([p.Y for p in tr])
# qids are unique per part; offset them so that no two parts share one
q = np.concatenate([p.qid + 10**6 * i for i, p in enumerate(tr)])
out = pd.DataFrame({"qid": te.qid})
for name in te.label_names:
    out[name] = te.Y[:, list(te.label_names).index(name)]
for obj, col in [("loss_aggregation", "xgb_loss_agg"), ("label_aggregation", "xgb_label_agg")]:
    m = XGBRanker(objective=obj, n_estimators=200, max_depth=4, n_jobs=2, random_state=0)
    m.fit(X, Y, qid=q)
    out[col] = m.predict(te.X)
out.to_csv(target, index=False)
print(out.shape, list(out.columns), out[list(te.label_names)].mean().round(3).to_dict())
