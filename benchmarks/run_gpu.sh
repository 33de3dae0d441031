#!/usr/bin/env bash
# The GPU checks of the README's GPU section, in one go, on a CUDA machine, from the repository
# root (no install needed: the checkout is put on PYTHONPATH):
#
#   bash benchmarks/run_gpu.sh [OUTDIR]      # default benchmarks/results/gpu
#
# 1. pytest -m gpu (the CUDA tests: losses, learners, auc of a CUDA tensor);
# 2. benchmarks/bench_gpu.py (auc on 1e8 scores GPU vs CPU, MLPRanker time per epoch and peak GPU
#    memory, the largest batch at n = 2048), also as JSON;
# 3. benchmarks/bench_surrogates.py --device cuda --vs-torch (losses on the GPU, vs plain torch);
# 4. benchmarks/bench_learners.py --device cuda (the MLP learners on an MSLR-shaped file, then the
#    plain-library comparison; the XGBoost rows need an xgboost built with CUDA).
# Each step has its own time limit and log, so one slow step cannot take the others' results.
set -u
out=${1:-benchmarks/results/gpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
  python3 -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'numpy', numpy.__version__)"
  nproc; uptime; } > "$out/machine.txt" 2>&1
step() {  # step NAME SECONDS COMMAND...
  local name=$1 secs=$2; shift 2
  local t0=$SECONDS
  timeout "$secs" "$@" > "$out/$name.txt" 2>&1
  echo "$name: exit $? in $((SECONDS - t0)) s (limit $secs s)" | tee -a "$out/steps.txt"
}
step pytest_gpu 120 python3 -m pytest -m gpu tests/test_gpu.py tests/test_metrics_torch.py -q -p no:cacheprovider
step bench_gpu 200 python3 benchmarks/bench_gpu.py --repeats 2 --json "$out/bench_gpu.json"
step bench_surrogates_cuda 110 python3 benchmarks/bench_surrogates.py --device cuda --vs-torch --sizes 512 2048 --repeats 5 --max-gb 100 --budget-gb 100
step bench_learners_cuda 120 bash -c "python3 benchmarks/bench_learners.py --device cuda --n-queries 1000 --learners mlp-pairwise-LA,mlp-pairwise-label,mlp-plugin-LA,mlp-pointwise-label --skip-load-only && python3 benchmarks/bench_learners.py --device cuda --vs-plain --vs-repeats 3"
