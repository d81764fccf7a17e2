"""The overlay's geometry (``ui.draw_geometry``): pure numpy, checked without a GPU."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

WIDTH, HEIGHT = 400, 300
COLORS = np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0]])


@pytest.fixture(scope="module")
def geometry(addon):
    return importlib.import_module(addon.__name__ + ".ui.draw_geometry")


def look_down_z(distance: float) -> np.ndarray:
    """View matrix of an eye at (0, 0, distance) looking down -z, +y up."""
    view = np.eye(4)
    view[2, 3] = -distance
    return view


def perspective(vertical_fov: float = 0.8, near: float = 0.1, far: float = 1000.0) -> np.ndarray:
    f = 1.0 / np.tan(vertical_fov / 2.0)
    aspect = WIDTH / HEIGHT
    return np.array([
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, (far + near) / (near - far), 2.0 * far * near / (near - far)],
        [0.0, 0.0, -1.0, 0.0],
    ])


def results(geometry, statuses, points_a, points_b, normals, depths):
    return geometry.ResultArrays(
        np.array(points_a, dtype=float), np.array(points_b, dtype=float), np.array(normals, dtype=float),
        np.array(depths, dtype=float), geometry.status_codes(statuses),
    )


def penetrating_x(geometry, depth=0.1):
    """Two cubes overlapping by ``depth`` along x: the arrow goes from B's witness point to A's."""
    return results(geometry, ['penetrating'], [[0.5, 0.2, 0.0]], [[0.5 - depth, 0.2, 0.0]], [[1.0, 0.0, 0.0]],
                   [depth])


def head_length_px(geometry, out, view, projection):
    """On-screen length of the first arrow head: from its tip to the middle of its base."""
    tip, left, right = out.triangle_coords[:3].astype(float)
    pixels, _ = geometry.project_to_pixels(np.array([tip, 0.5 * (left + right)]), projection @ view,
                                           (WIDTH, HEIGHT))
    return float(np.linalg.norm(pixels[0] - pixels[1]))


def compute(geometry, res, view, projection=None, **style):
    projection = perspective() if projection is None else projection
    return geometry.compute_overlay_geometry(
        res, view, projection, (WIDTH, HEIGHT), geometry.ArrowStyle(colors=COLORS, **style)
    )


def test_penetrating_arrow_runs_from_point_b_to_point_a_along_the_normal(geometry):
    res = penetrating_x(geometry, depth=0.1)
    out = compute(geometry, res, look_down_z(2.0), min_length_px=0.0)
    shaft_start, shaft_end = out.line_coords.astype(float)
    tip = out.triangle_coords[0].astype(float)
    np.testing.assert_allclose(shaft_start, res.points_b[0], atol=1e-6)
    np.testing.assert_allclose(tip, res.points_a[0], atol=1e-6)
    assert np.linalg.norm(tip - shaft_start) == pytest.approx(0.1, rel=1e-5)
    direction = (shaft_end - shaft_start) / np.linalg.norm(shaft_end - shaft_start)
    np.testing.assert_allclose(direction, [1.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(out.line_colors, [COLORS[0]] * 2)
    np.testing.assert_allclose(out.triangle_colors, [COLORS[0]] * 3)


@pytest.mark.parametrize("distance", [2.0, 50.0, 500.0])
def test_a_short_penetrating_arrow_reaches_back_to_a_visible_length_its_tip_on_point_a(geometry, distance):
    """0.2 deep, seen from afar: the arrow is drawn at least ``min_length_px`` long on screen, the head a part of
    it, pointing along the normal to A's witness point (the shaft starts behind B's)."""
    res, view = penetrating_x(geometry, depth=0.2), look_down_z(distance)
    out = compute(geometry, res, view, min_length_px=40.0)
    start, tip = out.line_coords[0].astype(float), out.triangle_coords[0].astype(float)
    np.testing.assert_allclose(tip, res.points_a[0], atol=1e-5)
    pixels, _ = geometry.project_to_pixels(np.array([start, tip, res.points_b[0]]), perspective() @ view,
                                           (WIDTH, HEIGHT))
    true_px = float(np.linalg.norm(pixels[1] - pixels[2]))
    assert np.linalg.norm(pixels[1] - pixels[0]) == pytest.approx(max(40.0, true_px), rel=1e-3)
    assert head_length_px(geometry, out, view, perspective()) < np.linalg.norm(pixels[1] - pixels[0])
    np.testing.assert_allclose((tip - start) / np.linalg.norm(tip - start), [1.0, 0.0, 0.0], atol=1e-6)


def test_arrow_head_keeps_a_minimum_size_on_screen_when_zoomed_out(geometry):
    res = penetrating_x(geometry, depth=0.1)
    near, far = look_down_z(2.0), look_down_z(500.0)
    near_out = compute(geometry, res, near, min_head_px=12.0)
    far_out = compute(geometry, res, far, min_head_px=12.0)
    assert head_length_px(geometry, far_out, far, perspective()) == pytest.approx(12.0, rel=1e-3)
    assert head_length_px(geometry, near_out, near, perspective()) >= 12.0 - 1e-6
    # Far away the head is much longer than the depth in world units, its tip still on point A.
    far_tip, far_left, far_right = far_out.triangle_coords[:3].astype(float)
    assert np.linalg.norm(far_tip - 0.5 * (far_left + far_right)) > 10 * 0.1
    np.testing.assert_allclose(far_tip, res.points_a[0], atol=1e-5)


@pytest.mark.parametrize("distance", [2.0, 500.0])
def test_ui_scale_multiplies_every_pixel_size(geometry, distance):
    res, view = penetrating_x(geometry, depth=1e-4), look_down_z(distance)
    sizes = {}
    for scale in (1.0, 2.0):
        out = compute(geometry, res, view, pixel_scale=scale, fixed_length_px=50.0)
        start, tip = out.line_coords[0].astype(float), out.triangle_coords[0].astype(float)
        pixels, _ = geometry.project_to_pixels(np.array([start, tip]), perspective() @ view, (WIDTH, HEIGHT))
        sizes[scale] = (np.linalg.norm(pixels[1] - pixels[0]), head_length_px(geometry, out, view, perspective()))
    np.testing.assert_allclose(sizes[2.0], 2.0 * np.array(sizes[1.0]), rtol=1e-3)
    assert sizes[1.0][0] == pytest.approx(50.0, rel=1e-3)


def test_head_scale_multiplies_the_head_size(geometry):
    res, view = penetrating_x(geometry), look_down_z(500.0)
    one = head_length_px(geometry, compute(geometry, res, view, head_scale=1.0), view, perspective())
    two = head_length_px(geometry, compute(geometry, res, view, head_scale=2.0), view, perspective())
    assert two == pytest.approx(2.0 * one, rel=1e-4)


@pytest.mark.parametrize("distance", [2.0, 50.0])
def test_fixed_length_arrows_have_that_length_on_screen_along_the_normal(geometry, distance):
    res = penetrating_x(geometry, depth=1e-6)
    view = look_down_z(distance)
    out = compute(geometry, res, view, fixed_length_px=80.0)
    start = out.line_coords[0].astype(float)
    tip = out.triangle_coords[0].astype(float)
    pixels, _ = geometry.project_to_pixels(np.array([start, tip]), perspective() @ view, (WIDTH, HEIGHT))
    assert np.linalg.norm(pixels[1] - pixels[0]) == pytest.approx(80.0, rel=1e-3)
    np.testing.assert_allclose((tip - start) / np.linalg.norm(tip - start), [1.0, 0.0, 0.0], atol=1e-6)


def test_separated_pairs_get_a_line_between_the_closest_points_and_no_head(geometry):
    res = results(geometry, ['separated'], [[0.5, 0.0, 0.0]], [[0.75, 0.0, 0.0]], [[1.0, 0.0, 0.0]], [0.0])
    out = compute(geometry, res, look_down_z(3.0))
    np.testing.assert_allclose(out.line_coords, [[0.75, 0.0, 0.0], [0.5, 0.0, 0.0]], atol=1e-6)
    assert len(out.triangle_coords) == 0
    np.testing.assert_allclose(out.line_colors, [COLORS[2]] * 2)


def test_touching_pairs_get_an_arrow_with_an_on_screen_length(geometry):
    res = results(geometry, ['touching'], [[0.5, 0.0, 0.0]], [[0.5, 0.0, 0.0]], [[0.0, 1.0, 0.0]], [0.0])
    view = look_down_z(4.0)
    out = compute(geometry, res, view, touching_length_px=40.0)
    start, tip = out.line_coords[0].astype(float), out.triangle_coords[0].astype(float)
    pixels, _ = geometry.project_to_pixels(np.array([start, tip]), perspective() @ view, (WIDTH, HEIGHT))
    assert np.linalg.norm(pixels[1] - pixels[0]) == pytest.approx(40.0, rel=1e-3)
    assert pixels[1][1] > pixels[0][1]  # along +y, which is up on screen
    np.testing.assert_allclose(out.triangle_colors, [COLORS[1]] * 3)


@pytest.mark.parametrize("distance", [2.0, 200.0])
def test_witness_points_get_markers_of_fixed_on_screen_size_in_the_status_colour(geometry, distance):
    res = penetrating_x(geometry)
    view = look_down_z(distance)
    out = compute(geometry, res, view, point_size_px=8.0)
    np.testing.assert_allclose(out.point_coords, [res.points_a[0], res.points_b[0]], atol=1e-6)
    assert out.marker_coords.shape == (12, 3)
    for centre, marker in zip(out.point_coords, out.marker_coords.reshape(2, 6, 3)):
        pixels, _ = geometry.project_to_pixels(marker.astype(float), perspective() @ view, (WIDTH, HEIGHT))
        centre_px, _ = geometry.project_to_pixels(centre[None].astype(float), perspective() @ view, (WIDTH, HEIGHT))
        np.testing.assert_allclose(pixels.mean(axis=0), centre_px[0], atol=1e-3)
        extent = pixels.max(axis=0) - pixels.min(axis=0)
        np.testing.assert_allclose(extent, [8.0, 8.0], rtol=1e-3)
    np.testing.assert_allclose(out.marker_colors, [COLORS[0]] * 12)


def test_labels_sit_beside_the_arrow_not_on_it(geometry):
    horizontal = penetrating_x(geometry, depth=0.5)
    vertical = results(geometry, ['penetrating'], [[0.0, 0.5, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]], [0.5])
    view = look_down_z(3.0)
    for res, offset_axis in ((horizontal, 1), (vertical, 0)):
        out = compute(geometry, res, view, label_offset_px=10.0)
        ends, _ = geometry.project_to_pixels(np.vstack([res.points_b, res.points_a]), perspective() @ view,
                                             (WIDTH, HEIGHT))
        middle = ends.mean(axis=0)
        anchor = out.label_anchors[0]
        assert out.label_visible[0]
        # Beside the middle of the arrow: offset across it (up or right), level with its middle along it.
        assert anchor[offset_axis] - middle[offset_axis] >= 10.0 - 1e-6
        assert abs(anchor[1 - offset_axis] - middle[1 - offset_axis]) < 0.5 * 14.0


def test_labels_behind_the_eye_are_hidden(geometry):
    res = penetrating_x(geometry)
    out = compute(geometry, res, look_down_z(-2.0))  # the eye is below the arrow, looking away from it
    assert not out.label_visible[0]


def test_curve_segments_on_screen_are_in_pixels_and_those_behind_the_eye_left_out(geometry):
    lines = np.array([[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0],  # across the middle of the view
                      [0.0, 0.0, 0.0], [0.0, 0.0, 5.0]], dtype=np.float32)  # runs behind the eye at z = 2
    segments = geometry.pixel_segments(lines, perspective() @ look_down_z(2.0), (WIDTH, HEIGHT))
    assert segments.shape == (1, 2, 2)
    half_width_px = 0.5 / 2.0 / np.tan(0.4) * HEIGHT / 2.0  # 0.5 m at 2 m, in pixels
    np.testing.assert_allclose(segments[0], [[WIDTH / 2 - half_width_px, HEIGHT / 2],
                                             [WIDTH / 2 + half_width_px, HEIGHT / 2]], rtol=1e-5)


def test_many_results_are_handled_together(geometry):
    rng = np.random.default_rng(1)
    count = 50
    normals = rng.normal(size=(count, 3))
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    points_b = rng.uniform(-1, 1, size=(count, 3))
    depths = rng.uniform(0.01, 0.2, size=count)
    statuses = ['penetrating', 'touching', 'separated'] * (count // 3) + ['penetrating'] * (count % 3)
    res = results(geometry, statuses, points_b + depths[:, None] * normals, points_b, normals, depths)
    out = compute(geometry, res, look_down_z(5.0))
    arrows = sum(s != 'separated' for s in statuses)
    assert out.line_coords.shape == (2 * count, 3)
    assert out.triangle_coords.shape == (3 * arrows, 3)
    assert out.point_coords.shape == (2 * count, 3)
    assert out.marker_coords.shape == (12 * count, 3)
    assert out.label_anchors.shape == (count, 2)
    penetrating = np.array(statuses) == 'penetrating'
    tips = out.triangle_coords[0::3].astype(float)[penetrating[np.array(statuses) != 'separated']]
    np.testing.assert_allclose(tips, res.points_a[penetrating], atol=1e-5)


def test_empty_input_gives_empty_arrays(geometry):
    out = compute(geometry, geometry.ResultArrays.empty(), look_down_z(2.0))
    for array in (out.line_coords, out.triangle_coords, out.marker_coords, out.label_anchors, out.label_visible):
        assert len(array) == 0
    assert out.line_coords.shape == (0, 3) and out.line_colors.shape == (0, 4)
