"""The README's Python examples run as written (they are documentation users copy)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_example_runs(i, capsys):
    exec(compile(BLOCKS[i], f"README.md[python block {i}]", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()  # every example prints what it computes
