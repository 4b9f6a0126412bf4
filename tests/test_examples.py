"""Every script in examples/ runs and prints what it promises."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXPECTED = {
    "optimal_tree.py": ["status optimal", "wrote"],
    "accelerated_tree.py": ["BendOCT:", "CART   :"],
    "fair_rules.py": ["fairness=dmc", "why sample 0"],
    "large_numeric_tree.py": ["CGH  train accuracy", "CART train accuracy"],
    "multiway_tree.py": ["no budget", "budget 4", "most expensive rule under the budget"],
    "regression_tree.py": ["depth 3: optimal, gap 0.00%", "by cross-validation", "wrote"],
    "survival_tree.py": ["hazard ratio:", "optimal, gap 0.00%", "saved and reloaded"],
    "policy_tree.py": ["budget None: optimal, gap 0.00%", "budget {2: 0.15}: optimal",
                       "wrote"],
}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name, tmp_path):
    args = [sys.executable, str(EXAMPLES / name)]
    if name == "optimal_tree.py":
        args.append(str(tmp_path))
    proc = subprocess.run(args, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for text in EXPECTED[name]:
        assert text in proc.stdout
    if name == "optimal_tree.py":
        assert (tmp_path / "tree.png").stat().st_size > 1000
        assert (tmp_path / "tree.dot").read_text().startswith("digraph")
