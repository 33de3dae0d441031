"""The module paths LA25 had before it took the shape of the other papers (issue 21), kept for one
release: importing one, or reading a name from it, warns (``FutureWarning``) and forwards to the
new home. Nothing here is used by the package itself."""

from __future__ import annotations

from bipartite._utils.moved import forward, register

__all__ = ["OLD_MODULES", "OLD_PACKAGE_NAMES", "OLD_RUN_NAMES", "forward", "install"]

_NEW = "bipartite.experiments.la25"

#: Old module -> the modules that now hold its names, searched in order.
OLD_MODULES: dict[str, tuple[str, ...]] = {
    f"{_NEW}.section7": (f"{_NEW}.studies.section7", f"{_NEW}.figures.section7",
                         "bipartite.data.letor"),
    f"{_NEW}.section7_report": (f"{_NEW}.figures.section7",),
    f"{_NEW}.section7_summary": (f"{_NEW}.run",),
    f"{_NEW}.section7_theory": (f"{_NEW}.studies.theory", f"{_NEW}.figures.section7"),
    f"{_NEW}.section7_gap": ("bipartite.consistency", f"{_NEW}.studies.gap",
                             f"{_NEW}.figures.section7"),
    f"{_NEW}.maxmin": (f"{_NEW}.studies.maxmin", f"{_NEW}.figures.maxmin"),
    f"{_NEW}.learners_vs_bayes": (f"{_NEW}.studies.learners_vs_bayes",
                                  f"{_NEW}.figures.learners_vs_bayes"),
}
#: Names of the old ``la25.studies`` / ``la25.figures`` modules, now in these modules.
OLD_PACKAGE_NAMES: dict[str, tuple[str, ...]] = {
    f"{_NEW}.studies": (f"{_NEW}.studies.sweeps",),
    f"{_NEW}.figures": (f"{_NEW}.figures.sweeps",),
}
#: Old names of ``la25.run``.
OLD_RUN_NAMES = {"la25_configs": "configs", "la25_figures": "figures", "la25_summary": "summary"}


def install() -> None:
    """Answer the old module paths (once; :func:`bipartite._utils.moved.register`)."""
    register(OLD_MODULES)
