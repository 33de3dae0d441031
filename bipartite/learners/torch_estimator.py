"""The one base of the package's torch estimators (docs/theory.md §10).

Every torch estimator — :class:`bipartite.learners.MLPRanker` and the contrib methods
(:mod:`bipartite.contrib.lr2ppo`, :mod:`~bipartite.contrib.label_ranking`,
:mod:`~bipartite.contrib.multitask`, :mod:`~bipartite.contrib.ap_training`) — derives from
:class:`TorchEstimator`, which owns the four chores they share:

* **parameters**: one table of checks, ``_param_checks`` (``{name: check(value, name)}``, merged
  along the class hierarchy), run by :meth:`TorchEstimator._check_params` at the start of
  ``fit``, scikit-learn style (``__init__`` only stores); each error names the parameter and the
  value. Checks that relate several parameters go in :meth:`TorchEstimator._check_param_relations`.
* **device**: ``device="auto" | "cpu" | "cuda" | "cuda:1" | "mps" | torch.device``, resolved by
  the one resolver :func:`bipartite._utils.device.resolve_device` (``"auto"`` picks CUDA when
  available; an unavailable device is refused naming it). The fitted device is ``device_`` (a
  string); prediction resolves it again (``name="device_"``), so a model fitted on a GPU and
  loaded on a machine without one says so.
* **threads**: ``n_jobs`` torch CPU threads during fit and prediction (None = 1, -1 = all
  cores), restored afterwards (:func:`bipartite._utils.device.torch_threads`).
* **seeding**: ``random_state`` (None, an int or a numpy Generator) gives one numpy Generator
  (:attr:`TorchFit.rng`: splits, batch orders, rollouts); torch seeds are drawn from it, one draw
  each, in the order they are asked for (:meth:`TorchFit.torch_seed` for the initial weights,
  :meth:`TorchFit.torch_generator` for a ``torch.Generator`` on the device). Torch's global RNG
  is never touched, so the same seed gives the same scores (on the CPU, bit for bit).

A subclass writes::

    class MyNet(TorchEstimator):
        _param_checks = {"margin": positive()}

        def fit(self, X, y):
            with self._fitting() as fit:           # checks, device_, rng, threads
                net = make_mlp(d, self.hidden, 1, seed=fit.torch_seed()).to(fit.device)
                ...                                # batches drawn from fit.rng
            return self

        def decision_function(self, X):
            with self._predicting("net_") as device:
                ...
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping
from numbers import Real
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError as _SklearnNotFittedError

from bipartite._utils.device import n_threads, resolve_device, torch_threads
from bipartite._utils.validation import (
    check_array,
    check_option,
    check_positive,
    check_random_state,
    check_real,
)
from bipartite.learners.nets import check_hidden, torch_seed

if TYPE_CHECKING:
    import torch

__all__ = [
    "NotFittedError",
    "TorchEstimator",
    "TorchFit",
]

#: A parameter check: ``check(value, name)`` raises an error naming ``name`` and the value.
ParamCheck = Callable[[Any, str], Any]


class NotFittedError(_SklearnNotFittedError, RuntimeError):
    """A torch estimator used before ``fit``: scikit-learn's ``NotFittedError`` (a ``ValueError``
    and an ``AttributeError``) and a ``RuntimeError`` (what the contrib estimators raised before
    they shared this base)."""


# ---------------------------------------------------------------------------------------------
# parameter checks (factories; each returns a check(value, name))
# ---------------------------------------------------------------------------------------------
def positive(*, integer: bool = False, allow_zero: bool = False) -> ParamCheck:
    """A finite number > 0 (>= 0 with ``allow_zero``; an int with ``integer``):
    :func:`bipartite._utils.validation.check_positive`."""
    def check(value: Any, name: str) -> Any:
        return check_positive(value, name, integer=integer, allow_zero=allow_zero)
    return check


def optional(check: ParamCheck) -> ParamCheck:
    """``None`` or a value that passes ``check``."""
    def check_optional(value: Any, name: str) -> Any:
        return None if value is None else check(value, name)
    return check_optional


def one_of(*options: str) -> ParamCheck:
    """One of the strings ``options``."""
    def check(value: Any, name: str) -> str:
        return check_option(value, name, options)
    return check


def in_range(low: float, high: float, *, low_closed: bool = True,
             high_closed: bool = False) -> ParamCheck:
    """A real number in ``[low, high)`` (the ends closed or open as asked)."""
    def check(value: Any, name: str) -> float:
        ok = isinstance(value, Real) and not isinstance(value, bool | np.bool_)
        ok = ok and (low <= value if low_closed else low < value)
        ok = ok and (value <= high if high_closed else value < high)
        if not ok:
            raise ValueError(f"The '{name}' parameter must be in {'[' if low_closed else '('}"
                             f"{low:g}, {high:g}{']' if high_closed else ')'}, got {value!r}.")
        return float(value)
    return check


def finite(value: Any, name: str) -> float:
    """A finite real number."""
    v = check_real(value, name)
    if not np.isfinite(v):
        raise ValueError(f"The '{name}' parameter must be finite, got {value!r}.")
    return v


def boolean(value: Any, name: str) -> bool:
    """``True`` or ``False``."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"The '{name}' parameter must be True or False, got {value!r}.")
    return bool(value)


def fitted(cls: type, attribute: str) -> ParamCheck:
    """An instance of ``cls`` that has been fitted (has ``attribute``): a stage model."""
    def check(value: Any, name: str) -> Any:
        if not isinstance(value, cls) or not hasattr(value, attribute):
            raise ValueError(f"The '{name}' parameter must be a fitted {cls.__name__}, "
                             f"got {value!r}.")
        return value
    return check


def _random_state(value: Any, name: str) -> np.random.Generator:
    return check_random_state(value, name)


# ---------------------------------------------------------------------------------------------
# the fit context and the base
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class TorchFit:
    """What :meth:`TorchEstimator._fitting` hands to ``fit``: the resolved device and the one
    numpy Generator of the fit, from which every torch seed is drawn."""

    device: torch.device
    rng: np.random.Generator

    def torch_seed(self) -> int:
        """An int seed for torch (initial weights: :func:`bipartite.learners.nets.make_mlp`),
        one draw from :attr:`rng`."""
        return torch_seed(self.rng)

    def torch_generator(self) -> torch.Generator:
        """A ``torch.Generator`` on :attr:`device` seeded with one draw from :attr:`rng` (random
        pair subsets and other in-graph sampling)."""
        import torch

        gen = torch.Generator(device=self.device)
        gen.manual_seed(self.torch_seed())
        return gen


class TorchEstimator(BaseEstimator):
    """Base of the torch estimators: one parameter check, one device resolver, one thread policy
    and one seeding scheme (see the module docstring).

    Parameters every subclass takes (checked here): ``device`` ("auto" or a torch device),
    ``n_jobs`` (torch CPU threads, None = 1) and ``random_state`` (None, int or numpy
    Generator); ``epochs``, ``batch_size``, ``lr``, ``weight_decay`` and ``hidden`` are checked
    here too when the subclass has them.
    """

    #: ``{parameter: check(value, name)}``; a subclass's table adds to (or overrides) its bases'.
    _param_checks: ClassVar[Mapping[str, ParamCheck]] = {
        "device": resolve_device,
        "n_jobs": n_threads,
        "random_state": _random_state,
        "hidden": check_hidden,
        "epochs": positive(integer=True),
        "batch_size": positive(integer=True),
        "lr": positive(),
        "weight_decay": positive(allow_zero=True),
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # every torch estimator here learns from a target
        return tags

    @classmethod
    def _all_param_checks(cls) -> dict[str, ParamCheck]:
        checks: dict[str, ParamCheck] = {}
        for klass in reversed(cls.__mro__):
            checks.update(vars(klass).get("_param_checks", {}))
        return checks

    def _check_params(self) -> None:
        """Check every parameter of the table (in ``__init__``'s order), then the relations."""
        checks = self._all_param_checks()
        for name, value in self.get_params(deep=False).items():
            if name in checks:
                checks[name](value, name)
        self._check_param_relations()

    def _check_param_relations(self) -> None:
        """Checks that involve several parameters (none by default)."""

    @contextlib.contextmanager
    def _fitting(self) -> Iterator[TorchFit]:
        """The start of every ``fit``: check the parameters, resolve the device (``device_``),
        make the numpy Generator of ``random_state``, and run the block with ``n_jobs`` torch
        threads."""
        self._check_params()
        device = resolve_device(self.device)
        rng = check_random_state(self.random_state, "random_state")
        self.device_ = str(device)
        with torch_threads(self.n_jobs):
            yield TorchFit(device=device, rng=rng)

    def _check_fitted(self, attribute: str) -> None:
        if not hasattr(self, attribute):
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet; call fit first.")

    def _validate_features(self, X: Any) -> np.ndarray:
        """``X`` (n, d) as float64 with the fitted number of features ``d = n_features_in_``
        (the one check of prediction inputs; scikit-learn's wording follows the package's)."""
        Xa = check_array(X, "X", ndim=2)
        if Xa.shape[1] != self.n_features_in_:
            raise ValueError(
                f"The 'X' parameter must have {self.n_features_in_} columns, got {Xa.shape[1]} "
                f"(X has {Xa.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input).")
        return Xa

    def _feature_tensor(self, X: Any, device: torch.device) -> torch.Tensor:
        """:meth:`_validate_features` of ``X`` as a float64 tensor on ``device``."""
        import torch

        return torch.as_tensor(self._validate_features(X), device=device)

    @contextlib.contextmanager
    def _predicting(self, attribute: str) -> Iterator[torch.device]:
        """The start of every prediction: the estimator must be fitted (have ``attribute``); the
        block runs with ``n_jobs`` torch threads and gets the fitted device (``device_``,
        resolved again: refused, naming ``device_``, where it is not available)."""
        self._check_fitted(attribute)
        device = resolve_device(getattr(self, "device_", "cpu"), "device_")
        with torch_threads(self.n_jobs):
            yield device
