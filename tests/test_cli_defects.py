"""Issue #20: CLI defects a new user found, lazy imports, the FairRUG README snippet and the
optimal_tree example.  The CLI runs in-process through ``optrees.cli.main``; a subprocess
only where a fresh interpreter or a real pipe is the point."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

import optrees
import optrees.datasets as datasets_mod
from optrees import load_dataset
from optrees.cli import METHODS, main
from optrees.datasets._registry import SPECS

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "scipy", "pandas", "pyscipopt", "highspy", "matplotlib", "dask",
         "distributed")


class Loaded(Exception):
    """Raised by the patched ``load_dataset``: the CLI got as far as loading data."""


@pytest.fixture()
def no_loading(monkeypatch):
    """Make any data loading by the CLI raise :class:`Loaded`."""
    def refuse(*args, **kwargs):
        raise Loaded

    monkeypatch.setattr(datasets_mod, "load_dataset", refuse)


def _one_line_error(capsys, code: int) -> str:
    """Assert the CLI contract for errors (exit 2, one line, no traceback); return the line."""
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2, captured.err
    assert len(err.splitlines()) == 1 and err.startswith("optrees: error:"), err
    assert "Traceback" not in captured.out + captured.err
    return err


# ------------------------------------------------------------------------- data checks
def test_nan_in_the_test_split_is_refused_before_fitting(tmp_path, capsys):
    """A NaN in a row that lands in the test part used to fail after the fit (tree printed,
    fit lost, no model saved); now all rows are checked first and nothing is fitted."""
    X, y = load_dataset("monk3")
    _, test_rows = train_test_split(np.arange(len(y)), test_size=0.25, random_state=0)
    frame = X.assign(label=y).astype(object)
    frame.iloc[test_rows[0], 0] = np.nan
    csv, model = tmp_path / "nan.csv", tmp_path / "model.json"
    frame.to_csv(csv, index=False)
    code = main(["fit", "--csv", str(csv), "--target", "label", "--out", str(model)])
    captured = capsys.readouterr()
    assert code == 2 and "missing values" in captured.err
    assert captured.out == ""  # no tree printed: the fit did not start
    assert not model.exists()


def test_header_only_csv(tmp_path, capsys):
    csv = tmp_path / "header.csv"
    csv.write_text("color,age,label\n")
    err = _one_line_error(capsys, main(["fit", "--csv", str(csv), "--target", "label"]))
    assert "no data rows" in err


# ------------------------------------------------------------------- parameter checks
def test_negative_seed_is_refused_before_loading(no_loading, capsys):
    err = _one_line_error(capsys, main(["fit", "--dataset", "monk1", "--seed", "-1"]))
    assert "--seed -1" in err and "random_state" in err


def test_parameter_errors_come_before_loading_data(no_loading, capsys):
    err = _one_line_error(capsys, main(["fit", "--dataset", "monk1", "--lam", "1.5"]))
    assert "--lam 1.5: lam must be a number in [0, 1)" in err


def test_estimator_depth_bound_is_reported_before_loading(no_loading, monkeypatch, capsys):
    """Whatever the estimators' parameter checks refuse (here a stand-in depth bound of 12)
    is one line naming the option, before any data is read."""
    import optrees.estimators.tree_params as tree_params
    from optrees._validation import OptreesInputError

    def bounded(depth, *args):
        if depth > 12:
            raise OptreesInputError(f"depth must be an integer in [1, 12], got {depth!r}")
        return depth

    monkeypatch.setattr(tree_params, "check_depth", bounded)
    err = _one_line_error(capsys, main(["fit", "--dataset", "monk1", "--depth", "50"]))
    assert "--depth 50: depth must be an integer in [1, 12]" in err


def test_depth_50_is_refused_before_loading(no_loading, capsys):
    """The real per-method depth bound of the estimators (BendersOCT, the default method)."""
    err = _one_line_error(capsys, main(["fit", "--dataset", "monk1", "--depth", "50"]))
    assert "--depth 50" in err


def test_bad_binarizer_bins_before_loading(no_loading, capsys):
    err = _one_line_error(capsys, main(["fit", "--dataset", "monk1", "--bins", "1"]))
    assert "--bins 1: n_bins" in err


@pytest.mark.parametrize("method,option", [
    ("cgh", ["--fairness", "dmc"]),
    ("omt", ["--lam", "0.1"]),
    ("rug", ["--no-warm-start"]),
    ("binoct", ["--lam", "0.01"]),
    ("bendoct", ["--fractional-cuts"]),
    ("omt", ["--exact-pricing", "milp"]),  # CGH's option; OMT's is --omt-exact
    ("oct", ["--sensitive", "a1"]),
    ("benders", ["--target", "class"]),  # a data option: --dataset has its own target
])
def test_option_the_method_does_not_use_is_refused(method, option, no_loading, capsys):
    err = _one_line_error(capsys, main(["fit", "--dataset", "monk1", "--method", method,
                                        *option]))
    assert option[0] in err
    assert option[0] == "--target" or f"is not used by --method {method}" in err


@pytest.mark.parametrize("method", sorted(METHODS))
def test_options_at_their_defaults_are_accepted(method, no_loading):
    """Shared options at their defaults (``--lam 0``: off) are accepted by every method; a
    method option typed counts whatever its value (tests/test_cli_audit.py)."""
    argv = ["fit", "--dataset", "monk1", "--method", method, "--lam", "0", "--depth", "2",
            "--seed", "0", "--test-size", "0.25"]
    with pytest.raises(Loaded):
        main(argv)


def test_bendoct_method_equals_benders_with_leaf_penalty(capsys):
    common = ["fit", "--dataset", "monk1", "--depth", "2", "--lam", "0.01", "--time-limit", "30"]
    assert main(common + ["--method", "bendoct"]) == 0
    bendoct = capsys.readouterr().out
    assert main(common + ["--method", "benders", "--penalty", "leaves"]) == 0
    benders = capsys.readouterr().out
    assert main(common + ["--method", "bendoct", "--penalty", "leaves"]) == 0  # its own penalty
    again = capsys.readouterr().out

    def objective(out: str) -> str:
        return re.search(r"objective\s+: (\S+)", out).group(1)

    assert "status          : optimal" in bendoct
    assert objective(bendoct) == objective(benders) == objective(again)


# ---------------------------------------------------------------------- help, version
def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"optrees {optrees.__version__}"


def _option_entries(help_text: str) -> list[str]:
    """The options' entries in an argparse help text, each joined into one line."""
    entries: list[str] = []
    open_entry = False
    for line in help_text.splitlines():
        if re.match(r"^  \S", line):  # an argument's first line
            entries.append(line)
            open_entry = True
        elif open_entry and re.match(r"^ {4,}\S", line):  # its help, wrapped
            entries[-1] += " " + line.strip()
        else:  # usage, section titles, blank lines
            open_entry = False
    return [" ".join(e.split()) for e in entries if e.strip().startswith("-")]


@pytest.mark.parametrize("command", ["fit", "predict", "datasets", "bench"])
def test_help_shows_every_default(command, capsys):
    assert main([command, "--help"]) == 0
    entries = _option_entries(capsys.readouterr().out)
    assert len(entries) >= 2
    required = {"--model", "--csv"} if command == "predict" else set()
    missing = [e for e in entries if "default" not in e and not e.startswith("-h,")
               and e.split()[0].rstrip(",") not in required]
    assert missing == []


# ------------------------------------------------------------------------- broken pipe
def test_predict_into_a_closed_pipe_exits_quietly(tmp_path):
    """``optrees predict ... | head -1``: no BrokenPipeError traceback."""
    X, y = load_dataset("monk1")
    model = tmp_path / "model.json"
    assert main(["fit", "--dataset", "monk1", "--depth", "1", "--time-limit", "10",
                 "--out", str(model)]) == 0
    big = tmp_path / "big.csv"
    pd.concat([X] * 1500, ignore_index=True).to_csv(big, index=False)  # > 1 MB of output
    code = "import sys; from optrees.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, "predict", "--model", str(model),
                             "--csv", str(big)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"prediction\n"
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# ------------------------------------------------------------------------ lazy imports
def _modules_after(code: str) -> list[str]:
    """The heavy packages imported after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[-1].split()


def test_import_optrees_imports_nothing_heavy():
    assert _modules_after("import optrees") == []


@pytest.mark.parametrize("argv,allowed", [
    (["--help"], set()),
    (["datasets"], {"pandas", "scipy"}),  # pandas prints the table
])
def test_cli_commands_import_only_what_they_need(argv, allowed):
    code = ("import contextlib, io\nfrom optrees.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n    main({argv!r})")
    assert set(_modules_after(code)) <= allowed


def test_public_names_still_import():
    from optrees import BendOCTClassifier, metrics

    assert BendOCTClassifier.__name__ == "BendOCTClassifier" and metrics.dmc_score
    assert all(getattr(optrees, name) is not None for name in optrees.__all__)
    assert set(optrees.__all__) <= set(dir(optrees))
    with pytest.raises(AttributeError):
        optrees.NoSuchThing  # noqa: B018


# ---------------------------------------------------------------------------- datasets
def test_datasets_listing_reads_no_data_file(tmp_path, monkeypatch, capsys):
    """Shapes come from the registry: the listing took 8 s with a data directory because it
    loaded every dataset.  (The iris file here is empty: reading it would fail.)"""
    def refuse(*args, **kwargs):
        raise AssertionError("the listing read a data file")

    monkeypatch.setattr(datasets_mod, "load_dataset", refuse)
    monkeypatch.setattr(datasets_mod, "_read", refuse)
    (tmp_path / "iris.data").write_text("")
    assert main(["datasets", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"kr-vs-kp\s+classification\s+3196\s+36\s+2\s+True\s+True", out)
    assert re.search(r"iris\s+classification\s+150\s+4\s+3\s+False\s+True", out)
    assert re.search(r"adult\s+classification\s+<NA>\s+<NA>\s+<NA>\s+False\s+False", out)
    assert re.search(r"liver-disorders\s+regression\s+345\s+5\s+<NA>\s+True\s+True", out)


def _data_dir_specs() -> list:
    """Non-bundled datasets whose files are in $OPTREES_DATA (none when it is not set)."""
    folder = os.environ.get(datasets_mod.ENV_VAR)
    return [s for s in SPECS if not s.bundled and folder
            and all((Path(folder) / f).is_file() for f in s.files)]


@pytest.mark.parametrize("spec", [s for s in SPECS if s.bundled] + _data_dir_specs(),
                         ids=lambda s: s.name)
def test_registry_shapes_match_the_data(spec):
    X, y = load_dataset(spec.name)
    classes = y.nunique() if spec.task == "classification" else 0  # a number has none
    assert spec.shape == (X.shape[0], X.shape[1], classes)


# ------------------------------------------------------------------- README, examples
def test_fairrug_readme_snippet_runs():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Rule sets and fairness: RUG / FairRUG", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(snippet, "README.md (FairRUG)", "exec"), namespace)  # noqa: S102
    assert namespace["fair"].fairness == "dmc" and len(namespace["fair"].rules_)


def test_optimal_tree_example_creates_its_output_dir(tmp_path):
    out = tmp_path / "new" / "dir"
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "optimal_tree.py"), str(out)],
                          capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "tree.json").is_file() and (out / "tree.png").is_file()

