"""At a tiny iteration cap the answer is conservative and honest, never an exception."""

import numpy as np
import pytest

import core
from generators import box

CUBE = box([0.5, 0.5, 0.5])


@pytest.mark.parametrize("offset", [0.5, 0.7, 0.9, 0.99])
@pytest.mark.parametrize("cap", [1, 2, 3])
def test_capped_overlap_reports_a_depth_that_separates(offset, cap):
    other = CUBE + [offset, 0.0, 0.0]
    contact = core.collide(CUBE, other, max_iterations=cap)
    true_signed_distance = offset - 1.0
    assert contact.status == "penetrating"  # never 'touching' for a pair 0.01 to 0.5 deep
    assert contact.bounds[0] <= true_signed_distance <= contact.bounds[1]
    assert contact.depth >= -true_signed_distance - 1e-12
    pushed = other + (contact.depth + 1e-9) * contact.normal
    assert not core.intersect(CUBE, pushed, touch_tolerance=0.0)
    np.testing.assert_allclose(contact.point_a - contact.point_b, contact.depth * contact.normal, atol=1e-12)
