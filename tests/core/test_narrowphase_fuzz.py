"""A short seeded run of ``benchmarks/fuzz_core.py`` (a few hundred ``collide`` calls on near-degenerate
pairs, checked against the Qhull reference, swapped, translated and reordered): no failure of any kind."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fuzz_core import CLASSES, fuzz  # noqa: E402


@pytest.mark.parametrize("seed", [8, 9])
def test_short_seeded_fuzz_finds_nothing(seed):
    fuzzer = fuzz(seed, 50)
    assert fuzzer.calls >= 150
    assert not fuzzer.failures, fuzzer.report(0.0)


def test_short_seeded_fuzz_of_every_class_finds_nothing():
    """Touching faces under rotations, micrometre shapes 1e8 from the origin and scales across the accepted range,
    as well as the near-degenerate mix: a few pairs of each, checked as above and through the batched path."""
    fuzzer = fuzz(13, 12, list(CLASSES))
    assert all(fuzzer.by_class[klass]["pairs"] == 3 for klass in CLASSES)
    assert not fuzzer.failures, fuzzer.report(0.0)
