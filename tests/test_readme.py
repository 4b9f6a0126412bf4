"""Every ``python`` code block of README.md runs on its own (issue 42): a fresh namespace per
block, nothing from the blocks before it.

To keep this fast, time limits in a block are capped at :data:`CAP` seconds (the text
``time_limit=N`` becomes ``time_limit=min(N, CAP)``); the blocks' data sets are small, except
the fair-tree block's adult, which needs the data directory.  A block that is not meant to
run says so on the line before its fence: ``<!-- readme: not run (reason) -->``."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from data_dir import DATA_DIR, NO_DATA_REASON

from optrees.estimators import TimeLimitWarning

ROOT = Path(__file__).resolve().parents[1]
CAP = 5
NOT_RUN = re.compile(r"<!--\s*readme: not run\b.*-->")
FENCE = re.compile(r"^( *)```python\s*$")


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """``(line, code, runs)`` of every python block: its first line, its code with the
    list-item indentation removed, and whether it is meant to run."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, start = len(fence.group(1)), i + 1
        end = next(j for j in range(start, len(lines)) if lines[j].strip() == "```")
        code = "\n".join(line[indent:] for line in lines[start:end])
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        out.append((start + 1, code, not NOT_RUN.search(before)))
        i = end + 1
    return out


BLOCKS = python_blocks((ROOT / "README.md").read_text())


def _capped(code: str) -> str:
    return re.sub(r"time_limit=([0-9.]+)", rf"time_limit=min(\1, {CAP})", code)


def test_the_readme_has_python_blocks_and_every_one_is_checked():
    assert len(BLOCKS) >= 6
    assert sum(runs for _, _, runs in BLOCKS) >= 6


@pytest.mark.parametrize("line,code,runs", BLOCKS, ids=[f"line{b[0]}" for b in BLOCKS])
def test_readme_block_runs_alone(line, code, runs, capsys):
    if not runs:
        pytest.skip("marked: not run")
    if "adult" in code and DATA_DIR is None:
        pytest.skip(NO_DATA_REASON)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        exec(compile(_capped(code), f"README.md:{line}", "exec"), {"__name__": "__readme__"})
    if "print(" in code:
        assert capsys.readouterr().out.strip()


def test_block_finder_reads_indented_blocks_and_the_not_run_mark():
    text = ("x\n```python\na = 1\n```\n- item\n\n  ```python\n  b = 2\n  ```\n"
            "<!-- readme: not run (needs a GPU) -->\n```python\nc = 3\n```\n")
    assert python_blocks(text) == [(3, "a = 1", True), (8, "b = 2", True), (12, "c = 3", False)]


def test_explain_prints_the_rules_that_fire():
    """``print(clf.explain(X))`` shows text (the list alone printed nothing in a script)."""
    import numpy as np

    from optrees import RUGClassifier, load_dataset

    X, y = load_dataset("house-votes-84")
    clf = RUGClassifier(max_depth=2, random_state=0).fit(X, y)
    explanation = clf.explain(X.iloc[:3])
    text = str(explanation)
    pred = clf.predict(X.iloc[:3])
    for i in range(3):
        assert f"sample {i}: class = {pred[i]}" in text
        for fired in explanation[i]:
            assert f"rule {fired['rule']}: IF {fired['condition']} THEN" in text
    assert sum(len(f) for f in explanation) == text.count("  rule ")
    assert isinstance(explanation, list) and explanation[0] == list(explanation[0])
    assert np.isclose(sum(f["weight"] for f in explanation[0]),
                      sum(f["weight"] for f in clf.explain(X.iloc[:1])[0]))
