"""Label layout (``ui.label_layout``): shown labels never overlap, free labels stay, moved ones get leaders.

The reference is a brute-force pairwise box test; the module is pure numpy (no GPU needed).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest


@pytest.fixture
def layout(addon):
    return importlib.import_module(addon.__name__ + ".ui.label_layout")


def overlapping(anchors: np.ndarray, sizes: np.ndarray) -> list:
    """Pairs of boxes that overlap (brute force)."""
    found = []
    for i in range(len(anchors)):
        for j in range(i + 1, len(anchors)):
            if all(anchors[i] < anchors[j] + sizes[j]) and all(anchors[j] < anchors[i] + sizes[i]):
                found.append((i, j))
    return found


def test_labels_apart_keep_their_places(layout):
    anchors = np.array([[0.0, 0.0], [200.0, 0.0], [0.0, 100.0]])
    sizes = np.full((3, 2), [80.0, 20.0])
    result = layout.spread_labels(anchors, sizes)
    assert result.shown.all()
    np.testing.assert_array_equal(result.anchors, anchors)
    assert len(result.leaders) == 0


def test_stacked_labels_move_apart_with_leaders(layout):
    anchors = np.zeros((3, 2))
    sizes = np.full((3, 2), [80.0, 20.0])
    result = layout.spread_labels(anchors, sizes, gap=2.0)
    assert result.shown.all()
    assert overlapping(result.anchors, sizes) == []
    np.testing.assert_array_equal(result.anchors[0], [0.0, 0.0])  # the first keeps its place
    assert sorted(result.anchors[1:, 1].tolist()) == [-22.0, 22.0]  # the others one label height away
    assert len(result.leaders) == 2
    np.testing.assert_array_equal(result.leaders[:, 0], [[-3.0, 10.0], [-3.0, 10.0]])  # from their own place
    assert sorted(result.leaders[:, 1, 1].tolist()) == [-2.0, 22.0]  # to the moved labels' near edges


@pytest.mark.parametrize("seed", range(5))
def test_crowded_labels_never_overlap(layout, seed):
    rng = np.random.default_rng(seed)
    anchors = rng.uniform(0.0, 300.0, size=(120, 2))
    sizes = np.column_stack([rng.uniform(30.0, 120.0, 120), np.full(120, 18.0)])
    result = layout.spread_labels(anchors, sizes, gap=0.0)
    assert overlapping(result.anchors, sizes[result.shown]) == []
    assert result.shown[0] and result.shown.sum() > 30
    moved = (result.anchors != anchors[result.shown]).any(axis=1)
    assert len(result.leaders) == moved.sum()
    assert (np.abs(result.anchors - anchors[result.shown])[:, 0] == 0).all()  # moved vertically only


def greedy_reference(anchors: np.ndarray, sizes: np.ndarray, gap: float, steps: int) -> tuple[list, list]:
    """``(shown, placed anchors)`` by the rule itself, in plain loops: each label in turn takes the first of its
    own place, one label height (plus gap) up, down, two up, ... that keeps ``gap`` from every label placed."""
    placed, shown = [], []
    for (x, y), (width, height) in zip(anchors.tolist(), sizes.tolist()):
        for step in [0] + [k * sign for k in range(1, steps + 1) for sign in (1, -1)]:
            low_y = y + step * (height + gap)
            if all(not (x < px + pw + gap and px < x + width + gap
                        and low_y < py + ph + gap and py < low_y + height + gap) for px, py, pw, ph in placed):
                placed.append((x, low_y, width, height))
                shown.append(True)
                break
        else:
            shown.append(False)
    return shown, [(px, py) for px, py, _pw, _ph in placed]


@pytest.mark.parametrize("count, spread", [(300, 150.0), (300, 1500.0), (60, 400.0)])
def test_layout_follows_the_greedy_rule_in_crowded_and_sparse_views(layout, count, spread):
    rng = np.random.default_rng(count + int(spread))
    anchors = rng.uniform(0.0, spread, size=(count, 2))
    sizes = np.column_stack([rng.uniform(30.0, 120.0, count), rng.uniform(12.0, 24.0, count)])
    result = layout.spread_labels(anchors, sizes, gap=2.0, steps=6)
    shown, placed = greedy_reference(anchors, sizes, 2.0, 6)
    assert result.shown.tolist() == shown
    np.testing.assert_allclose(result.anchors, np.array(placed).reshape(-1, 2), rtol=0, atol=1e-9)


def crosses(low: np.ndarray, size: np.ndarray, segment: np.ndarray) -> bool:
    """Whether ``segment`` (2, 2) meets the box ``low``..``low + size`` (plain parametric clipping)."""
    (x0, y0), (x1, y1) = segment.tolist()
    enter, leave = 0.0, 1.0
    for start, delta, lo, hi in ((x0, x1 - x0, low[0], low[0] + size[0]), (y0, y1 - y0, low[1], low[1] + size[1])):
        if delta == 0.0:
            if not lo <= start <= hi:
                return False
            continue
        t0, t1 = sorted(((lo - start) / delta, (hi - start) / delta))
        enter, leave = max(enter, t0), min(leave, t1)
    return enter <= leave


def test_a_label_on_a_curve_moves_off_it_with_a_leader(layout):
    anchors, sizes = np.array([[100.0, 100.0]]), np.array([[80.0, 20.0]])
    curve = np.array([[[90.0, 112.0], [200.0, 105.0]], [[200.0, 105.0], [210.0, 60.0]]])  # through the label
    assert crosses(anchors[0], sizes[0], curve[0])
    result = layout.spread_labels(anchors, sizes, obstacles=curve)
    assert result.shown.all()
    assert not any(crosses(result.anchors[0], sizes[0], segment) for segment in curve)
    assert np.abs(result.anchors[0] - anchors[0]).max() <= 3 * (20.0 + layout.LABEL_GAP_PX)  # nearby
    assert len(result.leaders) == 1


def test_a_label_in_a_vertical_line_moves_sideways(layout):
    anchors, sizes = np.array([[100.0, 100.0]]), np.array([[80.0, 20.0]])
    line = np.array([[[140.0, -500.0], [140.0, 700.0]]])  # crosses every place above and below
    result = layout.spread_labels(anchors, sizes, obstacles=line)
    assert not crosses(result.anchors[0], sizes[0], line[0])
    assert result.anchors[0, 1] == 100.0 and abs(result.anchors[0, 0] - 100.0) == 80.0 + layout.LABEL_GAP_PX


def test_a_label_with_no_place_off_the_curves_stays_shown(layout):
    anchors, sizes = np.array([[100.0, 100.0]]), np.array([[80.0, 20.0]])
    xs = np.arange(-200.0, 400.0, 10.0)
    hatch = np.stack([np.column_stack([xs, np.full_like(xs, -400.0)]),
                      np.column_stack([xs, np.full_like(xs, 600.0)])], axis=1)
    result = layout.spread_labels(anchors, sizes, obstacles=hatch)
    assert result.shown.all()
    np.testing.assert_array_equal(result.anchors, anchors)


@pytest.mark.parametrize("seed", range(4))
def test_labels_keep_off_random_curves_and_off_each_other(layout, seed):
    rng = np.random.default_rng(100 + seed)
    anchors = rng.uniform(0.0, 800.0, size=(40, 2))
    sizes = np.column_stack([rng.uniform(40.0, 110.0, 40), np.full(40, 18.0)])
    centres = rng.uniform(100.0, 700.0, size=(3, 2))  # three projected rings (ellipses) of 48 segments
    angles = np.linspace(0.0, 2.0 * np.pi, 49)
    rings = [c + np.column_stack([90.0 * np.cos(angles), 40.0 * np.sin(angles)]) for c in centres]
    curves = np.concatenate([np.stack([ring[:-1], ring[1:]], axis=1) for ring in rings])
    before = layout.spread_labels(anchors, sizes)
    result = layout.spread_labels(anchors, sizes, obstacles=curves)
    assert overlapping(result.anchors, sizes[result.shown]) == []

    def on_curves(placed, placed_sizes):
        return sum(any(crosses(low, size, segment) for segment in curves) for low, size in zip(placed, placed_sizes))

    assert on_curves(before.anchors, sizes[before.shown]) > 0  # the scene tests something
    assert on_curves(result.anchors, sizes[result.shown]) == 0
    assert result.shown.sum() >= before.shown.sum() - 2


def test_without_curves_or_with_curves_out_of_reach_the_layout_is_unchanged(layout):
    rng = np.random.default_rng(7)
    anchors = rng.uniform(0.0, 300.0, size=(150, 2))
    sizes = np.column_stack([rng.uniform(30.0, 120.0, 150), np.full(150, 18.0)])
    before = layout.spread_labels(anchors, sizes)
    far = np.array([[[5000.0, 5000.0], [6000.0, 5100.0]]])
    for obstacles in (None, np.zeros((0, 2, 2)), far):
        result = layout.spread_labels(anchors, sizes, obstacles=obstacles)
        np.testing.assert_array_equal(result.shown, before.shown)
        np.testing.assert_array_equal(result.anchors, before.anchors)
        np.testing.assert_array_equal(result.leaders, before.leaders)


@pytest.fixture
def panel(addon):
    return importlib.import_module(addon.__name__ + ".ui.panel")


@pytest.mark.parametrize("chars", range(9, 40))
def test_row_names_fit_and_show_in_full_where_a_line_holds_them(panel, chars):
    """A narrow result row puts "A ↔ B" on one line when it fits, else A and "↔ B" on lines of their own (B's beside
    the value when there is room): every line fits, every name that a line can hold shows in full, and one too long
    for a line keeps its start and end (a copy's number)."""
    end_chars = 16  # "depth 0.1 m" and the buttons
    pairs = (("Kitchen_Cabinet_Left_Door.012", "Wall"), ("A", "B"),
             ("Kitchen_Cabinet_Left_Door.012", "Kitchen_Cabinet_Right_Door.012"), ("Bracket.001", "Thick Torus"))
    for name_a, name_b in pairs:
        lines, beside = panel.row_name_lines(name_a, name_b, chars, end_chars)
        assert 1 <= len(lines) <= 2 and all(len(line) <= chars for line in lines)
        assert not beside or len(beside) + end_chars <= chars
        text = "\n".join([*lines, beside])
        if len(name_a) + len(name_b) + 3 <= chars:
            assert lines == [f"{name_a} \u2194 {name_b}"] and beside == ""
        for name, room in ((name_a, chars), (name_b, chars - 2)):
            if len(name) <= room:
                assert name in text
            else:
                cut = [line.lstrip("\u2194 ") for line in text.split("\n") if "\u2026" in line]
                assert any(line[0] == name[0] and line.endswith(name[-1]) for line in cut)


def test_a_label_that_would_run_under_the_sidebar_goes_left_of_its_arrow(layout):
    """With Region Overlap the sidebar covers the view's right edge: a label that would run under it is put on the
    other side of its arrow (its right edge then ``2 * offset`` left of where its left edge was), one whose own
    place is already under it is left out with its arrow, and the others stay."""
    anchors = np.array([[100.0, 10.0], [460.0, 50.0], [520.0, 90.0], [30.0, 130.0]])
    sizes = np.full((4, 2), [80.0, 20.0])
    moved, kept = layout.within_right_edge(anchors, sizes, right=500.0, offset=10.0)
    assert kept.tolist() == [True, True, False, True]
    np.testing.assert_array_equal(moved[[0, 3]], anchors[[0, 3]])
    np.testing.assert_array_equal(moved[1], [460.0 - 20.0 - 80.0, 50.0])
    assert (moved[kept, 0] + sizes[kept, 0] <= 500.0).all()


def test_the_uncovered_width_ends_where_an_overlapping_sidebar_begins(addon):
    """Blender reports a 3D view's main region under an overlapping sidebar at its full width: the labels' room
    ends at the sidebar's left edge; without overlap, or with the sidebar hidden, it is the region's width."""
    from types import SimpleNamespace

    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    view = SimpleNamespace(type='WINDOW', x=40, width=1000)

    def area(sidebar_x: int, sidebar_width: int) -> SimpleNamespace:
        return SimpleNamespace(regions=[view, SimpleNamespace(type='UI', x=sidebar_x, width=sidebar_width)])

    assert overlay.uncovered_width(area(1040 - 292, 292), view) == 1000 - 292  # drawn over the view
    assert overlay.uncovered_width(area(1040, 292), view) == 1000  # beside it (no Region Overlap)
    assert overlay.uncovered_width(area(1039, 1), view) == 1000  # hidden: Blender keeps it 1 pixel wide
    assert overlay.uncovered_width(None, view) == 1000
