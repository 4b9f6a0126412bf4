"""Tests that kill surviving mutants of the feature-cost objective and its search (issue #42,
item 9; ``bench/mutation.py feature-costs``)."""
