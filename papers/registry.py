"""Claims registry: every checked claim of a source paper, with the test that checks it, and a
verdict that follows the rules of ``papers/README.md``.

Each paper folder holds one or more ``papers/<paper>/claims*.toml`` files of ``[[claim]]`` tables:

================  ========  ===============================================================
field             required  meaning
================  ========  ===============================================================
``id``            yes       unique over all files, e.g. ``"hapvr-rminus-c1"``
``statement``     yes       the claim, in the paper's words where possible
``source``        yes       where the paper makes it (section / equation / proposition)
``test``          yes       pytest node id, ``tests/...py::test_name`` (``::Class::test``,
                            a parametrized ``[...]`` suffix allowed)
``verdict``       yes       one of :data:`VERDICTS` (rules: ``papers/README.md``)
``evidence``      yes       what the verdict rests on, one of :data:`EVIDENCE`:
                            ``"exact"`` (a proof, an enumeration or a pinned counterexample,
                            checked by ``test``), ``"effect"`` (an empirical effect recomputed
                            from a saved results file, below), ``"stand-in"`` (checked only on
                            stand-in data or a stand-in setting, the numbers in ``scope``, no
                            saved results) or ``"not-run"`` (nothing could be run)
``scope``         one of    the exact scope in which the verdict was checked
``notes``         these     anything else (counterexample, caveats)
``code``          no        dotted name of the implementation, e.g. ``bipartite.surrogates.ap_risk``
``figure``        no        repository-relative path of a figure that shows it
================  ========  ===============================================================

A claim with ``evidence = "effect"`` also has, all required:

================  ===============================================================================
``setting``       ``"own"`` (the claim's own setting and full scope), ``"narrower"`` (its own
                  setting, a narrower scope stated in ``scope``) or ``"stand-in"`` (other data or
                  another generator in place of the paper's)
``results``       repository-relative path of the saved results CSV (``papers/<paper>/results/``,
                  written by ``python papers/collect.py``)
``contrast``      table: ``metric`` (a column), ``treatment`` and ``baseline`` (values of
                  ``column``, default ``"objective"``; ``baseline`` may be a list: per unit the
                  best of them in the claimed direction), ``direction`` (``"higher"`` or
                  ``"lower"``: what the claim says of the treatment), ``pair_by`` (the unit
                  that pairs rows, default ``"split"``), ``where`` (a table of
                  column = value filters) and ``values`` (a table arm = value: the value of
                  ``column`` that an arm named differently in the results file has there, e.g.
                  ``{ label_aggregation = "sum", loss_aggregation = "macro" }``: the claims of
                  every study name the arms alike)
``effect``, ``se``  mean and standard error over the units of treatment minus baseline
``splits_agree``  how many units have a difference in the claimed direction
``splits``        how many units there are
================  ===============================================================================

The recorded ``effect``, ``se``, ``splits_agree``, ``splits`` and the verdict must equal what
:func:`grade` recomputes from the results file (``effect`` and ``se`` to 4 decimals);
``tests/papers/test_verdicts.py`` checks every such claim, and :func:`verdict_rule` is the one
place where the rules become a verdict.

An optional top-level ``[paper]`` table may give ``title`` (used as the README heading when the
README is created). Usage, from the repository root::

    python papers/registry.py            # print every paper's table
    python papers/registry.py --write    # rewrite the table in each papers/<paper>/README.md
    python papers/registry.py --check    # exit 1 if a README is stale, a test is missing or a
                                         # recorded effect or verdict differs from its results
    python papers/registry.py --grade    # print each effect claim's fields as recomputed

``--write`` replaces only the text between ``<!-- claims:start -->`` and ``<!-- claims:end -->``
(appending the block if a README has no markers, creating the README if there is none).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PAPERS_DIR = Path(__file__).resolve().parent
REPO_ROOT = PAPERS_DIR.parent
START = "<!-- claims:start -->"
END = "<!-- claims:end -->"
VERDICTS = ("holds", "holds-narrower", "inconclusive", "refuted", "not-reproduced")
EVIDENCE = ("exact", "effect", "stand-in", "not-run")
SETTINGS = ("own", "narrower", "stand-in")
DIRECTIONS = ("higher", "lower")
#: Verdicts each kind of evidence can give (an effect's verdict is further fixed by the rule).
EVIDENCE_VERDICTS = {"exact": ("holds", "holds-narrower", "refuted"),
                     "effect": VERDICTS, "stand-in": ("not-reproduced",),
                     "not-run": ("not-reproduced",)}
REQUIRED = ("id", "statement", "source", "test", "verdict", "evidence")
TEXT = ("scope", "notes", "code", "figure")
EFFECT_FIELDS = ("setting", "results", "contrast", "effect", "se", "splits_agree", "splits")
OPTIONAL = (*TEXT, *EFFECT_FIELDS)
CONTRAST_FIELDS = ("metric", "treatment", "baseline", "direction", "column", "pair_by", "where",
                   "values")
TOP_LEVEL = ("claim", "paper")
#: Decimals to which ``effect`` and ``se`` are recorded (and compared).
DECIMALS = 4
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_NODE = re.compile(r"^(?P<path>[^:\s]+\.py)::(?P<names>[A-Za-z_]\w*(::[A-Za-z_]\w*)*)"
                   r"(?P<param>\[.*\])?$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


class ClaimsError(ValueError):
    """A claims file does not follow the schema (the message names the file and the entry)."""


@dataclass(frozen=True)
class Contrast:
    """How an effect is computed from a results file: ``treatment`` minus ``baseline`` rows (values
    of ``column``) on ``metric``, paired by ``pair_by``, on the rows matching ``where``. An arm
    named in ``values`` has that value of ``column`` in the results file instead of its name."""

    metric: str
    treatment: str
    baseline: tuple[str, ...]
    direction: str
    column: str = "objective"
    pair_by: str = "split"
    where: tuple[tuple[str, object], ...] = ()
    values: tuple[tuple[str, str], ...] = ()

    def value(self, arm: str) -> str:
        """The value of ``column`` that the arm ``arm`` has in the results file."""
        return dict(self.values).get(arm, arm)


@dataclass(frozen=True)
class Claim:
    paper: str
    file: str
    id: str
    statement: str
    source: str
    test: str
    verdict: str
    evidence: str = "exact"
    scope: str = ""
    notes: str = ""
    code: str = ""
    figure: str = ""
    setting: str = ""
    results: str = ""
    contrast: Contrast | None = None
    effect: float | None = None
    se: float | None = None
    splits_agree: int | None = None
    splits: int | None = None


@dataclass(frozen=True)
class Grade:
    """What a results file gives for a claim's contrast, and the verdict the rules give it."""

    effect: float
    se: float
    splits_agree: int
    splits: int
    verdict: str
    #: the verdict the effect alone would give in the claim's own setting (differs from
    #: ``verdict`` only for a stand-in, which is ``not-reproduced`` whatever its effect)
    reading: str


def claims_files(root: Path = PAPERS_DIR) -> list[Path]:
    """All ``<root>/*/claims*.toml`` files, sorted."""
    return sorted(root.glob("*/claims*.toml"))


def _text(entry: dict, key: str, where: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise ClaimsError(f"{where}: field '{key}' must be a non-empty string, got {value!r}.")
    return value


def _number(entry: dict, key: str, where: str, kind: type) -> float | int:
    value = entry[key]
    ok = isinstance(value, int) if kind is int else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or value != value or value in (float("inf"),
                                                                       float("-inf")):
        raise ClaimsError(f"{where}: field '{key}' must be a finite "
                          f"{'integer' if kind is int else 'number'}, got {value!r}.")
    return value


def _contrast(value: object, where: str) -> Contrast:
    if not isinstance(value, dict):
        raise ClaimsError(f"{where}: 'contrast' must be a table, got {value!r}.")
    unknown = sorted(set(value) - set(CONTRAST_FIELDS))
    if unknown:
        raise ClaimsError(f"{where}: unknown contrast field(s) {unknown}; allowed are "
                          f"{list(CONTRAST_FIELDS)}.")
    missing = [k for k in ("metric", "treatment", "baseline", "direction") if k not in value]
    if missing:
        raise ClaimsError(f"{where}: contrast is missing {missing}.")
    for key in ("metric", "treatment", "direction", "column", "pair_by"):
        if key in value:
            _text(value, key, f"{where} contrast")
    if value["direction"] not in DIRECTIONS:
        raise ClaimsError(f"{where}: contrast 'direction' must be one of {list(DIRECTIONS)}, "
                          f"got {value['direction']!r}.")
    base = value["baseline"]
    base = (base,) if isinstance(base, str) else base
    if (not isinstance(base, list | tuple) or not base
            or not all(isinstance(b, str) and b.strip() for b in base)):
        raise ClaimsError(f"{where}: contrast 'baseline' must be a string or a non-empty list of "
                          f"strings, got {value['baseline']!r}.")
    if value["treatment"] in base:
        raise ClaimsError(f"{where}: contrast 'treatment' {value['treatment']!r} is also a "
                          "baseline.")
    filters = value.get("where", {})
    if not isinstance(filters, dict) or not all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in filters.values()):
        raise ClaimsError(f"{where}: contrast 'where' must be a table of column = string or "
                          f"number, got {filters!r}.")
    values = value.get("values", {})
    arms = (value["treatment"], *base)
    if (not isinstance(values, dict) or not set(values) <= set(arms)
            or not all(isinstance(v, str) and v.strip() for v in values.values())):
        raise ClaimsError(f"{where}: contrast 'values' must be a table arm = string whose arms "
                          f"are the treatment or a baseline {list(arms)}, got {values!r}.")
    if len({values.get(a, a) for a in arms}) != len(arms):
        raise ClaimsError(f"{where}: contrast 'values' gives two arms the same value: {values!r}.")
    return Contrast(metric=value["metric"], treatment=value["treatment"], baseline=tuple(base),
                    direction=value["direction"], column=value.get("column", "objective"),
                    pair_by=value.get("pair_by", "split"), where=tuple(sorted(filters.items())),
                    values=tuple(sorted(values.items())))


def _validate_effect(entry: dict, where: str) -> dict:
    missing = [k for k in EFFECT_FIELDS if k not in entry]
    if missing:
        raise ClaimsError(f"{where}: evidence = 'effect' needs the field(s) {missing}.")
    if entry["setting"] not in SETTINGS:
        raise ClaimsError(f"{where}: 'setting' must be one of {list(SETTINGS)}, "
                          f"got {entry['setting']!r}.")
    results = Path(_text(entry, "results", where))
    if results.is_absolute() or ".." in results.parts or results.suffix != ".csv":
        raise ClaimsError(f"{where}: 'results' must be a repository-relative .csv path, "
                          f"got {entry['results']!r}.")
    out = {"setting": entry["setting"], "results": entry["results"],
           "contrast": _contrast(entry["contrast"], where),
           "effect": float(_number(entry, "effect", where, float)),
           "se": float(_number(entry, "se", where, float)),
           "splits_agree": _number(entry, "splits_agree", where, int),
           "splits": _number(entry, "splits", where, int)}
    if out["se"] < 0 or not 0 <= out["splits_agree"] <= out["splits"]:
        raise ClaimsError(f"{where}: need se >= 0 and 0 <= splits_agree <= splits, got se = "
                          f"{out['se']}, {out['splits_agree']} of {out['splits']}.")
    return out


def _validate_entry(entry: object, where: str) -> dict:
    if not isinstance(entry, dict):
        raise ClaimsError(
            f"{where}: a [[claim]] entry must be a table, got {type(entry).__name__}."
        )
    unknown = sorted(set(entry) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ClaimsError(f"{where}: unknown field(s) {unknown}; allowed are "
                          f"{list(REQUIRED) + list(OPTIONAL)}.")
    missing = [k for k in REQUIRED if k not in entry]
    if missing:
        raise ClaimsError(f"{where}: missing required field(s) {missing}.")
    out = {key: _text(entry, key, where) for key in (*REQUIRED, *TEXT) if key in entry}
    if not ("scope" in entry or "notes" in entry):
        raise ClaimsError(f"{where}: give at least one of 'scope' or 'notes'.")
    if not _ID.match(entry["id"]):
        raise ClaimsError(f"{where}: 'id' must match {_ID.pattern}, got {entry['id']!r}.")
    if entry["verdict"] not in VERDICTS:
        raise ClaimsError(f"{where}: 'verdict' must be one of {list(VERDICTS)}, "
                          f"got {entry['verdict']!r}.")
    if entry["evidence"] not in EVIDENCE:
        raise ClaimsError(f"{where}: 'evidence' must be one of {list(EVIDENCE)}, "
                          f"got {entry['evidence']!r}.")
    if entry["verdict"] not in EVIDENCE_VERDICTS[entry["evidence"]]:
        raise ClaimsError(f"{where}: evidence {entry['evidence']!r} cannot give the verdict "
                          f"{entry['verdict']!r} (it gives {list(EVIDENCE_VERDICTS[entry['evidence']])}; "
                          "rules: papers/README.md).")
    if entry["evidence"] == "effect":
        out.update(_validate_effect(entry, where))
    else:
        extra = [k for k in EFFECT_FIELDS if k in entry]
        if extra:
            raise ClaimsError(f"{where}: field(s) {extra} belong to evidence = 'effect', "
                              f"not {entry['evidence']!r}.")
    if not _NODE.match(entry["test"]):
        raise ClaimsError(f"{where}: 'test' must be a pytest node id "
                          f"'path/to/test_x.py::test_name', got {entry['test']!r}.")
    if "code" in entry and not _DOTTED.match(entry["code"]):
        raise ClaimsError(f"{where}: 'code' must be a dotted name like "
                          f"'bipartite.module.function', got {entry['code']!r}.")
    if "figure" in entry:
        fig = Path(entry["figure"])
        if fig.is_absolute() or ".." in fig.parts:
            raise ClaimsError(f"{where}: 'figure' must be a repository-relative path, "
                              f"got {entry['figure']!r}.")
    return out


def load_file(path: Path, *, root: Path = PAPERS_DIR) -> list[Claim]:
    """Parse and validate one claims file."""
    rel = path.relative_to(root.parent) if path.is_relative_to(root.parent) else path
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ClaimsError(f"{rel}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(TOP_LEVEL))
    if unknown:
        raise ClaimsError(f"{rel}: unknown top-level key(s) {unknown}; use [[claim]] tables "
                          "and an optional [paper] table.")
    entries = data.get("claim")
    if not isinstance(entries, list) or not entries:
        raise ClaimsError(f"{rel}: needs at least one [[claim]] table.")
    paper = path.parent.name
    out = []
    for i, entry in enumerate(entries):
        label = entry.get("id", "?") if isinstance(entry, dict) else "?"
        fields = _validate_entry(entry, f"{rel} claim #{i + 1} ({label})")
        out.append(Claim(paper=paper, file=str(rel), **fields))
    return out


# ------------------------------------------------------------------------------------------------
# Verdicts from saved results
# ------------------------------------------------------------------------------------------------


def verdict_rule(effect: float, se: float, splits_agree: int, splits: int, *,
                 direction: str, setting: str) -> str:
    """The verdict the rules of ``papers/README.md`` give an empirical effect.

    ``effect`` is treatment minus baseline (mean over ``splits`` paired units, standard error
    ``se``); ``splits_agree`` units have a difference in the claimed ``direction``.

    * ``stand-in`` setting: ``"not-reproduced"``, whatever the effect (a null result on a stand-in
      is no refutation, and a success on one no confirmation);
    * fewer than two units, ``|effect| <= 2 se``, or units on both sides (``0 < splits_agree <
      splits``, a zero difference counting as against): ``"inconclusive"``;
    * otherwise the effect's sign decides: in the claimed direction ``"holds"`` (setting ``own``)
      or ``"holds-narrower"`` (setting ``narrower``), against it ``"refuted"``.

    >>> verdict_rule(-0.006, 0.002, 0, 5, direction="higher", setting="own")
    'refuted'
    >>> verdict_rule(0.013, 0.008, 4, 5, direction="higher", setting="own")
    'inconclusive'
    >>> verdict_rule(0.013, 0.008, 4, 5, direction="higher", setting="stand-in")
    'not-reproduced'
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {list(DIRECTIONS)}, got {direction!r}")
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {list(SETTINGS)}, got {setting!r}")
    if setting == "stand-in":
        return "not-reproduced"
    if splits < 2 or abs(effect) <= 2 * se or 0 < splits_agree < splits:
        return "inconclusive"
    claimed = effect > 0 if direction == "higher" else effect < 0
    if not claimed:
        return "refuted"
    return "holds" if setting == "own" else "holds-narrower"


def paired_effect(frame, contrast: Contrast, *, source: str = "results") -> tuple[float, float,
                                                                                int, int]:
    """``(effect, se, splits_agree, splits)`` of ``contrast`` on a results frame: per unit of
    ``pair_by``, treatment minus baseline (the best baseline in the claimed direction when there
    are several; each arm selected by its value, :meth:`Contrast.value`); mean and standard error
    (sample s.d. / sqrt(n)) over the units that have all of them. The contrast is computed by its one home in the package,
    :func:`bipartite.studies.report.paired_contrast`.

    Raises :class:`ClaimsError`, naming ``source``, when a column is missing, a unit holds two
    rows of one arm (the ``where`` filter is not specific enough) or no unit is complete.
    """
    from bipartite.studies.report import paired_contrast

    c = contrast
    try:
        out = paired_contrast(frame, c.metric, c.value(c.treatment),
                              tuple(c.value(b) for b in c.baseline), direction=c.direction,
                              column=c.column, pair_by=c.pair_by, where=c.where)
    except ValueError as exc:
        raise ClaimsError(f"{source}: {exc}") from None
    return out.effect, out.se, out.agree, out.units


def grade(claim: Claim, repo_root: Path = REPO_ROOT) -> Grade:
    """Recompute an effect claim's fields from its results file and apply :func:`verdict_rule`."""
    import pandas as pd

    if claim.evidence != "effect" or claim.contrast is None:
        raise ClaimsError(f"{claim.file} ({claim.id}): only evidence = 'effect' is graded from "
                          "results.")
    path = repo_root / claim.results
    if not path.is_file():
        raise ClaimsError(f"{claim.file} ({claim.id}): results file {claim.results} does not "
                          "exist (write it with python papers/collect.py).")
    frame = pd.read_csv(path)
    effect, se, agree, n = paired_effect(frame, claim.contrast, source=claim.results)
    rule = dict(direction=claim.contrast.direction)
    return Grade(effect=effect, se=se, splits_agree=agree, splits=n,
                 verdict=verdict_rule(effect, se, agree, n, setting=claim.setting, **rule),
                 reading=verdict_rule(effect, se, agree, n, setting="own", **rule))


def grade_problems(claim: Claim, repo_root: Path = REPO_ROOT) -> list[str]:
    """How an effect claim's recorded fields differ from :func:`grade` (empty when they agree)."""
    try:
        g = grade(claim, repo_root)
    except ClaimsError as exc:
        return [str(exc)]
    tol = 0.5 * 10.0 ** -DECIMALS + 1e-12
    out = []
    for key in ("effect", "se"):
        recorded, computed = getattr(claim, key), getattr(g, key)
        if abs(recorded - computed) > tol:
            out.append(f"{claim.id}: {key} = {recorded} recorded, {computed:.{DECIMALS}f} "
                       f"recomputed from {claim.results}")
    for key in ("splits_agree", "splits", "verdict"):
        if getattr(claim, key) != getattr(g, key):
            out.append(f"{claim.id}: {key} = {getattr(claim, key)!r} recorded, "
                       f"{getattr(g, key)!r} by the rules from {claim.results}")
    return out


def graded_fields(claim: Claim, repo_root: Path = REPO_ROOT) -> str:
    """The TOML lines of an effect claim as :func:`grade` computes them (``--grade``)."""
    g = grade(claim, repo_root)
    return (f'# {claim.id}\nverdict = "{g.verdict}"\neffect = {g.effect:.{DECIMALS}f}\n'
            f"se = {g.se:.{DECIMALS}f}\nsplits_agree = {g.splits_agree}\nsplits = {g.splits}\n")


def load_claims(root: Path = PAPERS_DIR) -> list[Claim]:
    """Every claim of every ``<root>/*/claims*.toml``, validated; ids unique over all files."""
    claims: list[Claim] = []
    seen: dict[str, str] = {}
    for path in claims_files(root):
        for c in load_file(path, root=root):
            if c.id in seen:
                raise ClaimsError(f"{c.file}: claim id {c.id!r} is already used in {seen[c.id]}.")
            seen[c.id] = c.file
            claims.append(c)
    return claims


def node_exists(node_id: str, repo_root: Path = REPO_ROOT) -> bool:
    """Whether the pytest node id names a test function that exists (static: parses the file).

    ``path::func``, ``path::Class::method`` and a parametrization suffix ``[...]`` (stripped) are
    understood; the function may be sync or async.
    """
    m = _NODE.match(node_id)
    if not m:
        return False
    path = repo_root / m.group("path")
    if not path.is_file():
        return False
    names = m.group("names").split("::")
    body = ast.parse(path.read_text(encoding="utf-8")).body
    for i, name in enumerate(names):
        last = i == len(names) - 1
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef) if last else (ast.ClassDef,)
        node = next((n for n in body if isinstance(n, kinds) and n.name == name), None)
        if node is None:
            return False
        body = getattr(node, "body", [])
    return True


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def evidence_summary(c: Claim) -> str:
    """One line on what the verdict rests on: the effect with its contrast and the results file
    (a stand-in's effect with the verdict it would read in the claim's own setting), or the kind
    of evidence."""
    if c.evidence == "exact":
        return "exact (proof, enumeration or pinned counterexample in the test)"
    if c.evidence == "stand-in":
        return "stand-in only: the paper's data or setting could not be run (numbers in the scope)"
    if c.evidence == "not-run":
        return "not run: the paper's data or setting is not available here"
    k = c.contrast
    base = " / ".join(k.baseline)
    if len(k.baseline) > 1:
        base = f"best of ({base})"
    where = ", ".join(f"{a} = {b}" for a, b in k.where)
    if k.values:
        named = ", ".join(f"{a} = {k.column} {b}" for a, b in k.values)
        where = f"{where}; {named}" if where else named
    text = (f"{k.treatment} − {base}, {k.metric}{f' ({where})' if where else ''}: "
            f"{c.effect:+.{DECIMALS}f} ± {c.se:.{DECIMALS}f}, {c.splits_agree}/{c.splits} "
            f"{k.pair_by}s {k.direction} as claimed; setting {c.setting}")
    if c.setting == "stand-in":
        reading = verdict_rule(c.effect, c.se, c.splits_agree, c.splits, direction=k.direction,
                               setting="own")
        text += f" (would read {reading} in the claim's own setting)"
    return text + f"; results: `{c.results}`"


def evidence_text(c: Claim) -> str:
    """:func:`evidence_summary` for a paper's README table (the results file linked)."""
    text = evidence_summary(c)
    if c.evidence == "effect":
        text = text.replace(f"`{c.results}`", f"[{Path(c.results).name}](../../{c.results})")
    return text


def render_table(claims: list[Claim]) -> str:
    """Markdown table of the claims (one row each, in file order)."""
    rows = ["| ID | Claim | Source | Verdict | Evidence | Scope and notes | Checked by |",
            "|---|---|---|---|---|---|---|"]
    for c in claims:
        extra = " ".join(x for x in (c.scope, c.notes) if x)
        checked = f"`{c.test}`"
        if c.code:
            checked += f"<br>code: `{c.code}`"
        if c.figure:
            checked += f"<br>figure: [{Path(c.figure).name}](../../{c.figure})"
        rows.append(f"| `{c.id}` | {_cell(c.statement)} | {_cell(c.source)} | **{c.verdict}** | "
                    f"{_cell(evidence_text(c))} | {_cell(extra)} | {checked} |")
    counts = ", ".join(f"{sum(c.verdict == v for c in claims)} {v}" for v in VERDICTS)
    return "\n".join(rows) + f"\n\n{len(claims)} claims: {counts}.\n"


def render_block(claims: list[Claim]) -> str:
    """The README block between the markers, markers included."""
    return (f"{START}\n<!-- generated by `python papers/registry.py --write` from "
            f"claims*.toml; do not edit by hand -->\n\n{render_table(claims)}{END}")


def updated_readme(text: str | None, block: str, title: str) -> str:
    """README text with ``block`` between the markers (other text kept)."""
    if text is None:
        return f"# {title}\n\n{block}\n"
    start, end = text.find(START), text.find(END)
    if start == -1 and end == -1:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    if start == -1 or end == -1 or end < start:
        raise ClaimsError(f"README has unbalanced claim markers {START} / {END}.")
    return text[:start] + block + text[end + len(END):]


def _paper_title(paper_dir: Path) -> str:
    for path in sorted(paper_dir.glob("claims*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        title = data.get("paper", {}).get("title") if isinstance(data.get("paper"), dict) else None
        if isinstance(title, str) and title.strip():
            return title.strip()
    return paper_dir.name


def readmes(root: Path = PAPERS_DIR) -> dict[Path, str]:
    """README path -> its expected content, for every paper with a claims file."""
    by_paper: dict[str, list[Claim]] = {}
    for c in load_claims(root):
        by_paper.setdefault(c.paper, []).append(c)
    out = {}
    for paper, claims in sorted(by_paper.items()):
        readme = root / paper / "README.md"
        current = readme.read_text(encoding="utf-8") if readme.is_file() else None
        out[readme] = updated_readme(current, render_block(claims), _paper_title(root / paper))
    return out


def stale_readmes(root: Path = PAPERS_DIR) -> list[Path]:
    """READMEs whose claims table differs from the registry."""
    return [p for p, want in readmes(root).items()
            if not p.is_file() or p.read_text(encoding="utf-8") != want]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the README tables")
    mode.add_argument("--check", action="store_true",
                      help="exit 1 if a README is stale, a claim names a missing test, or a "
                           "recorded effect or verdict differs from its results file")
    mode.add_argument("--grade", action="store_true",
                      help="print each effect claim's fields as recomputed from its results")
    args = parser.parse_args(argv)
    if args.write:
        for path, text in readmes().items():
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(REPO_ROOT)}")
        return 0
    if args.grade:
        for c in load_claims():
            if c.evidence == "effect":
                print(graded_fields(c))
        return 0
    if args.check:
        claims = load_claims()
        problems = [f"stale: {p.relative_to(REPO_ROOT)} (run python papers/registry.py --write)"
                    for p in stale_readmes()]
        problems += [f"missing test: {c.id} -> {c.test}" for c in claims
                     if not node_exists(c.test)]
        problems += [msg for c in claims if c.evidence == "effect" for msg in grade_problems(c)]
        print("\n".join(problems) if problems else "claims registry OK")
        return 1 if problems else 0
    by_paper: dict[str, list[Claim]] = {}
    for c in load_claims():
        by_paper.setdefault(c.paper, []).append(c)
    for paper, claims in sorted(by_paper.items()):
        print(f"## {paper}\n\n{render_table(claims)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
