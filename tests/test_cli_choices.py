"""`optrees fit --help` listed `--lp-method {auto,simplex,interior,auto,simplex,interior}`:
RUG's and RUX's equal rules were joined word for word.  Every choice list of the help now
names each word once (read from the help text itself)."""

from __future__ import annotations

import re

from optrees.cli import main


def test_fit_help_names_each_choice_once(capsys) -> None:
    main(["fit", "--help"])  # in this process: a new interpreter costs seconds
    text = capsys.readouterr().out
    lists = re.findall(r"(--[\w-]+) \[?\{([^}]*)\}", text)
    assert any(flag == "--lp-method" for flag, _ in lists)
    for flag, words in lists:
        split = words.split(",")
        assert len(split) == len(set(split)), (flag, split)
