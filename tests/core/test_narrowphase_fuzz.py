"""A short seeded run of ``benchmarks/fuzz_core.py`` (a few hundred ``collide`` calls on near-degenerate
pairs, checked against the Qhull reference, swapped, translated and reordered): no failure of any kind."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fuzz_core import fuzz  # noqa: E402


@pytest.mark.parametrize("seed", [8, 9])
def test_short_seeded_fuzz_finds_nothing(seed):
    fuzzer = fuzz(seed, 50)
    assert fuzzer.calls >= 150
    assert not fuzzer.failures, fuzzer.report(0.0)
