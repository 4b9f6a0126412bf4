"""Tests that kill surviving mutants of the search over every threshold (issue #42, item 9;
``bench/mutation.py numeric-search``)."""
