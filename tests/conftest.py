"""Shared fixtures and the hypothesis profile used in CI and locally."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from bipartite.data import data_dir

# Bounded, deterministic property tests: no deadline (CI machines are noisy), derandomised so that
# a failure reproduces, and a bounded number of examples so the whole property suite stays fast.
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The data-path setting of the package (an explicit path, then $BIPARTITE_DATA, then
# ../shared/data): pytest runs from the repository root.
SHARED_DATA = data_dir().resolve()


@pytest.fixture
def shared_data() -> Path:
    """The read-only real data folder ``../shared/data`` (skip, with the reason, if absent or
    empty; tests/test_data_skips.py checks it)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent (CI has it beside the clone)")
    if not any(SHARED_DATA.iterdir()):
        pytest.skip(f"real data folder {SHARED_DATA} is empty (CI has it beside the clone)")
    return SHARED_DATA


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20251122)
