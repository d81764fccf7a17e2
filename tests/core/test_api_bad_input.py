"""Bad input raises ValueError naming the offending argument, from every public entry point."""

from __future__ import annotations

import numpy as np
import pytest

import core
from generators import box

CUBE = box([0.5, 0.5, 0.5])
BAD_POINTS = {
    "empty": np.zeros((0, 3)),
    "flat list": [1.0, 2.0, 3.0],
    "two columns": np.zeros((4, 2)),
    "four columns": np.zeros((4, 4)),
    "three dimensions": np.zeros((2, 4, 3)),
    "nan": np.array([[0.0, 0.0, 0.0], [np.nan, 1.0, 0.0]]),
    "inf": np.array([[0.0, 0.0, 0.0], [1.0, -np.inf, 0.0]]),
    "text": [["a", "b", "c"]],
    "ragged": [[0.0, 1.0, 2.0], [1.0, 2.0]],
}


@pytest.mark.parametrize("function", [core.collide, core.intersect])
@pytest.mark.parametrize("kind", BAD_POINTS)
def test_bad_points_name_their_argument(function, kind):
    with pytest.raises(ValueError, match="points_a"):
        function(BAD_POINTS[kind], CUBE)
    with pytest.raises(ValueError, match="points_b"):
        function(CUBE, BAD_POINTS[kind])


@pytest.mark.parametrize("kind", BAD_POINTS)
def test_bad_polytope_points(kind):
    with pytest.raises(ValueError, match="points"):
        core.Polytope(BAD_POINTS[kind])


@pytest.mark.parametrize("function", [core.collide, core.intersect])
@pytest.mark.parametrize("name, value", [
    ("tolerance", -1e-9), ("tolerance", np.nan), ("tolerance", np.inf), ("tolerance", "small"),
    ("touch_tolerance", -1.0), ("touch_tolerance", np.nan),
    ("max_iterations", 0), ("max_iterations", -5), ("max_iterations", 2.5),
])
def test_bad_options_name_their_argument(function, name, value):
    with pytest.raises(ValueError, match=name):
        function(CUBE, CUBE + 2.0, **{name: value})


@pytest.mark.parametrize("make, name", [
    (lambda: core.Sphere([0, 0, 0], -1.0), "radius"),
    (lambda: core.Sphere([0, 0, 0], np.nan), "radius"),
    (lambda: core.Sphere([0, np.inf, 0], 1.0), "center"),
    (lambda: core.Sphere([0, 0], 1.0), "center"),
    (lambda: core.Box([1.0, -1.0, 1.0]), "half_extents"),
    (lambda: core.Box([1.0, np.nan, 1.0]), "half_extents"),
    (lambda: core.Box([1.0, 1.0]), "half_extents"),
    (lambda: core.Box([1.0, 1.0, 1.0], np.eye(3)), "transform"),
    (lambda: core.Polytope(CUBE, np.full((4, 4), np.nan)), "transform"),
    (lambda: core.Polytope(CUBE).transformed(np.eye(2)), "matrix"),
])
def test_bad_shape_arguments(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_good_options_are_accepted():
    contact = core.collide(CUBE, CUBE + [1.5, 0, 0], tolerance=1e-6, touch_tolerance=0.6, max_iterations=5)
    assert contact.status == "touching" and contact.tolerance == pytest.approx(0.6)
    assert core.intersect(CUBE, CUBE + [1.5, 0, 0], touch_tolerance=0.6)
    assert not core.intersect(CUBE, CUBE + [1.5, 0, 0], touch_tolerance=0.4)


@pytest.mark.parametrize("make", [
    lambda huge: core.collide([[huge, 0.0, 0.0]], [[0.0, 0.0, 0.0]]),
    lambda huge: core.Polytope([[0.0, 0.0, 0.0]], transform=np.diag([huge, 1.0, 1.0, 1.0])),
    lambda huge: core.Sphere([0.0, huge, 0.0], 1.0),
])
def test_coordinates_too_large_to_square_are_refused(make):
    """Beyond 1e100 float64 squares head for overflow (inf, then NaN); refuse them by name."""
    make(1e100)  # still fine
    with pytest.raises(ValueError, match="too large"):
        make(3.4e38 * 1e100)
