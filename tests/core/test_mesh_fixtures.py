"""The test fixtures' own promises: prisms over counter-clockwise polygons are closed solids of the right volume,
and a polygon they cannot triangulate is an error, not an endless loop."""

import numpy as np
import pytest

from core.mesh.volume import mesh_volume
import mesh_fixtures as fx


def test_a_box_is_a_closed_prism_of_its_volume():
    box = fx.box((0.0, 0.0, 0.0), (2.0, 3.0, 0.5))
    assert len(box.triangles) == 12
    assert mesh_volume(box) == pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize("polygon", [
    [(0, 0), (1, 0), (1, 0), (0, 0)],   # a box of no width: no area
    [(0, 0), (0, 1), (1, 1), (1, 0)],   # clockwise
])
def test_a_polygon_without_ears_is_an_error(polygon):
    with pytest.raises(ValueError, match="counter-clockwise"):
        fx.extrude(np.array(polygon, dtype=float), 0.0, 1.0)
