"""Seeded fuzzer of ``core.collide`` on near-degenerate convex pairs, checked against an exact reference.

Run from the repository root: ``python benchmarks/fuzz_core.py [--seed S] [--count N] [--classes all]``.
Input classes, failure kinds and how far the Qhull reference is trusted: docs/performance.md, "What each
benchmark measures".
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "core"))
if __name__ == "__main__" and "--core" in sys.argv:  # fuzz another checkout's core (e.g. before a change)
    sys.path.insert(0, sys.argv[sys.argv.index("--core") + 1])
import core  # noqa: E402
from core.narrowphase.batch import collide_many  # noqa: E402
from core.validation import MAX_COORDINATE, MIN_PAIR_SIZE  # noqa: E402
from scipy.spatial import ConvexHull, QhullError  # noqa: E402
from reference import FLAT_TOLERANCE, ExactHull, reference_contact  # noqa: E402

SAME_ANSWER = 1e-9  # swap/translation/order and converged values agree to this, relative to size
REFERENCE_SLACK = 1e-13  # rounding of the reference, relative to size
GAPS = (0.0, 1e-15, 1e-14, 1e-13, 3e-13, 1e-12, 3e-12, 1e-11, 1e-9, 1e-6, 1e-3, 0.1)


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.diag(r))


def _thin(rng: np.random.Generator) -> float:
    return float(rng.choice([0.0, 1e-15, 1e-12, 1e-9, 1e-6]))


def needle(rng: np.random.Generator) -> np.ndarray:
    """A segment, possibly thickened by a few jittered points."""
    ends = rng.normal(size=(2, 3))
    count = int(rng.integers(0, 4))
    along = ends[0] + rng.uniform(size=(count, 1)) * (ends[1] - ends[0])
    return np.vstack([ends, along + _thin(rng) * rng.normal(size=(count, 3))])


def plate(rng: np.random.Generator) -> np.ndarray:
    """A random convex-ish polygon, possibly 1e-9 thick."""
    count = int(rng.integers(3, 9))
    angle = np.sort(rng.uniform(0, 2 * np.pi, count))
    flat = np.column_stack([np.cos(angle), rng.uniform(0.01, 1) * np.sin(angle), _thin(rng) * rng.normal(size=count)])
    return flat @ _rotation(rng).T


def sliver(rng: np.random.Generator) -> np.ndarray:
    """A triangle whose third corner is barely off the line of the other two."""
    a, b = rng.normal(size=(2, 3))
    off = np.cross(b - a, rng.normal(size=3))
    return np.array([a, b, a + rng.uniform() * (b - a) + float(rng.choice([1e-12, 1e-9, 1e-6])) * off])


def cluster(rng: np.random.Generator) -> np.ndarray:
    """Two to five near-duplicate points."""
    width = float(rng.choice([0.0, 1e-15, 1e-12, 1e-9]))
    return rng.normal(size=3) + width * rng.normal(size=(int(rng.integers(2, 6)), 3))


def box(rng: np.random.Generator) -> np.ndarray:
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    half = rng.uniform(0.05, 1, 3) * (1e-9 if rng.uniform() < 0.2 else 1.0) ** np.eye(3)[rng.integers(3)]
    return signs * half @ (_rotation(rng).T if rng.uniform() < 0.7 else np.eye(3))


def cloud(rng: np.random.Generator) -> np.ndarray:
    return rng.normal(size=(int(rng.choice([4, 8, 30, 200])), 3)) * rng.uniform(0.05, 1, 3)


def sphere(rng: np.random.Generator) -> np.ndarray:
    count = int(rng.choice([20, 100, 400, 2000]))
    i = np.arange(count) + 0.5
    z = 1.0 - 2.0 * i / count
    phi = i * np.pi * (3.0 - np.sqrt(5.0))
    r = np.sqrt(1.0 - z * z)
    return rng.uniform(0.2, 1.0) * np.column_stack([r * np.cos(phi), r * np.sin(phi), z]) @ _rotation(rng).T


SHAPES = {"needle": needle, "plate": plate, "sliver": sliver, "cluster": cluster, "box": box,
          "cloud": cloud, "sphere": sphere}


def _size(points_a: np.ndarray, points_b: np.ndarray) -> float:
    both = np.vstack([points_a, points_b])
    return float(np.linalg.norm(both.max(axis=0) - both.min(axis=0)))


def _place(points_a: np.ndarray, points_b: np.ndarray, target: float) -> np.ndarray:
    """B shifted along the reference normal toward a signed distance of ``target``."""
    try:
        ref = reference_contact(points_a, points_b)
    except QhullError:
        return points_b
    normal = ref.normal if ref.normal is not None else np.array([0.0, 0.0, 1.0])
    return points_b + (target - ref.signed_distance) * normal


def random_pair(rng: np.random.Generator) -> tuple[str, np.ndarray, np.ndarray]:
    """One fuzz case: a named pair of point clouds, unscaled (sizes about 1)."""
    kind = rng.choice(["mixed", "mixed", "identical", "touching", "segment-cluster"])
    gap = float(rng.choice(GAPS)) * float(rng.choice([-1.0, 1.0]))
    if kind == "identical":
        name = str(rng.choice(["plate", "needle", "sliver", "box"]))
        a = SHAPES[name](rng)
        b = a + gap * rng.normal(size=3)
        return f"identical-{name}", a, b
    if kind == "touching":  # dyadic boxes and clouds placed exactly face to face
        a = np.round(rng.uniform(-4, 4, size=(8, 3)) * 4) / 4
        b = a.copy()
        axis = int(rng.integers(3))
        b[:, axis] += a[:, axis].max() - b[:, axis].min()
        return "touching-dyadic", a, b
    if kind == "segment-cluster":
        a = needle(rng)[:2]
        b = cluster(rng)
        b = b - b.mean(axis=0) + a[0] + rng.uniform() * (a[1] - a[0])
        return "segment-cluster", a, _place(a, b, gap * _size(a, b))
    name_a, name_b = rng.choice(list(SHAPES), size=2)
    a, b = SHAPES[name_a](rng), SHAPES[name_b](rng)
    b = b - b.mean(axis=0) + a.mean(axis=0)
    return f"{name_a}-{name_b}", a, _place(a, b, gap * _size(a, b))


def touching_pair(rng: np.random.Generator) -> tuple[str, np.ndarray, np.ndarray]:
    """Two tilted shapes face to face, exactly or 1e-16 .. 1e-15 x size apart or overlapping: a box and its
    copy moved across one of its faces by its width, or a hull and its mirror image in one of its facets."""
    offset = float(rng.choice([0.0, 1.0, -1.0])) * 10.0 ** rng.uniform(-16, -15)
    if rng.uniform() < 0.5:
        turn = _rotation(rng)
        half = rng.uniform(0.05, 1.0, 3) if rng.uniform() < 0.5 else np.full(3, rng.uniform(0.05, 1.0))
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
        a = (signs * half) @ turn.T + rng.normal(size=3)
        axis = int(rng.integers(3))
        normal = turn[:, axis] * float(rng.choice([-1.0, 1.0]))
        b = a + (2.0 * half[axis] + offset * _size(a, a)) * normal
        return "touching-box", a, b[rng.permutation(len(b))]
    name = str(rng.choice(["box", "cloud", "sphere"]))
    a = SHAPES[name](rng) @ _rotation(rng).T
    hull = ConvexHull(a)
    facet = int(rng.integers(len(hull.simplices)))
    normal = hull.equations[facet, :3] / np.linalg.norm(hull.equations[facet, :3])
    plane = float((a[hull.simplices[facet]] @ normal).max())
    b = a - 2.0 * (a @ normal - plane)[:, None] * normal + offset * _size(a, a) * normal
    return f"touching-mirror-{name}", a, b


def tiny_far_pair(rng: np.random.Generator) -> tuple[str, np.ndarray, np.ndarray]:
    """Pairs for ``tiny_far_frame``: identical dense point spheres and needles slightly shifted, or any pair."""
    roll = rng.uniform()
    gap = float(rng.choice(GAPS)) * float(rng.choice([-1.0, 1.0]))
    if roll < 0.25:
        a = sphere(rng)
        return "identical-sphere", a, a + gap * rng.normal(size=3)
    if roll < 0.5:
        a = needle(rng)
        return "identical-needle", a, a + gap * rng.normal(size=3)
    return random_pair(rng)


def tiny_far_frame(rng: np.random.Generator) -> tuple[int, float]:
    """A pair a few micrometres across (2^-20 .. 2^-16 x its unscaled size of about 2), about 1e7 .. 1e9 from the
    origin: 1e12 .. 1e15 times its size."""
    exponent = int(rng.integers(-20, -15))
    return exponent, float(10.0 ** rng.uniform(7, 9) * 2.0 ** -exponent / 2.0)


def extreme_pair(rng: np.random.Generator) -> tuple[str, np.ndarray, np.ndarray]:
    """Any pair, scaled by a factor in [1, 2): with ``extreme_frame``'s power of two, scales such as 1e-120 or
    1e90 that are no power of two."""
    name, a, b = random_pair(rng)
    factor = rng.uniform(1.0, 2.0)
    return name, a * factor, b * factor


def extreme_frame(rng: np.random.Generator) -> tuple[int, float]:
    """A power of two anywhere across the accepted range (and a little beyond: those must be refused), with
    offsets up to 1e4 x size in a third of the cases."""
    low, high = math.frexp(MIN_PAIR_SIZE)[1] - 4, math.frexp(MAX_COORDINATE)[1] + 2
    offset = float(10.0 ** rng.uniform(0, 4)) if rng.uniform() < 0.3 else 0.0
    return int(rng.integers(low, high)), offset


def random_frame(rng: np.random.Generator) -> tuple[int, float]:
    """Power-of-two scale exponent and offset (in sizes) for a case."""
    roll = rng.uniform()
    if roll < 0.6:
        exponent = int(rng.integers(-20, 21))
    elif roll < 0.8:
        exponent = int(rng.integers(-560, 341))
    else:
        exponent = 0
    offset = float(10.0 ** rng.uniform(0, 4)) if rng.uniform() < 0.4 else 0.0
    return exponent, offset


def _near_degenerate(points: np.ndarray, size: float) -> bool:
    """Thinner than 1e-6 x size in some direction without being exactly flat, a segment or a point."""
    if len(points) < 2:
        return False
    spread = np.zeros(3)
    values = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
    spread[:len(values)] = values
    return bool(((spread > 0.0) & (spread < 1e-6 * size * np.sqrt(len(points)))).any())


def _reference_slack(ref, a: np.ndarray, b: np.ndarray) -> float:
    """How far the reference may be off: rounding, except where A, B or A - B is thin without being
    flat: Qhull then merges nearly coplanar facets and the reference flattens what is thinner than
    FLAT_TOLERANCE x size, so checks there are only as fine as the value check (1e-9 x size)."""
    thin = ref.difference.dimension < 3 or any(_near_degenerate(p, ref.size) for p in (a, b, ref.difference.vertices))
    return (SAME_ANSWER if thin else REFERENCE_SLACK) * ref.size


class Fuzzer:
    """Runs cases and counts failures by kind, remembering the worst case of each kind."""

    def __init__(self) -> None:
        self.calls = 0
        self.failures: Counter = Counter()
        self.klass = "mixed"  # the class of the cases being run (``CLASSES``)
        self.by_class: dict[str, Counter] = {}  # class -> pairs, calls, failures
        self.worst: dict[str, tuple[float, str]] = {}
        self.statuses: Counter = Counter()
        self.skipped = 0  # cases the reference (Qhull) could not hull
        self.worst_pairs: dict[str, tuple] = {}
        self.current: tuple = ()

    def count(self, what: str) -> None:
        self.by_class.setdefault(self.klass, Counter())[what] += 1

    def fail(self, kind: str, amount: float, detail: str) -> None:
        self.failures[kind] += 1
        self.count("failures")
        if kind not in self.worst or amount > self.worst[kind][0]:
            self.worst[kind] = (amount, detail)
            self.worst_pairs[kind] = self.current

    def save(self, directory: Path) -> None:
        """Write the worst case of each kind as ``<kind>.npz``: ``a``, ``b``, ``exponent``, ``shift`` and
        ``name``, the arguments of ``run_case``."""
        directory.mkdir(parents=True, exist_ok=True)
        for kind, (name, a, b, exponent, shift) in self.worst_pairs.items():
            np.savez(directory / f"{kind.replace(':', '-')}.npz", a=a, b=b, exponent=exponent, shift=shift, name=name)

    def collide(self, a: np.ndarray, b: np.ndarray, detail: str):
        self.calls += 1
        self.count("calls")
        try:
            return core.collide(a, b)
        except ValueError as exc:
            self.fail("refused", 1.0, f"{detail}: {exc}")
        except Exception as exc:  # noqa: BLE001 - any other exception on valid input is the finding
            self.fail(f"exception:{type(exc).__name__}", 1.0, f"{detail}: {exc!r}")
        return None

    def run_case(self, name: str, a: np.ndarray, b: np.ndarray, exponent: int, shift: np.ndarray,
                 rng: np.random.Generator) -> None:
        """Check the pair ``(a + shift) * 2**exponent``, ``(b + shift) * 2**exponent`` against the reference
        of ``a``, ``b`` (exact, as ``dyadic_shift`` makes the shift exact): conventions, then swap,
        translation and order invariance."""
        self.count("pairs")
        shift = np.asarray(shift, dtype=float)
        offset = float(np.abs(shift).max())
        detail = f"{name} exponent={exponent} shift={offset:.3g}"
        factor = 2.0 ** exponent
        with np.errstate(all="ignore"):
            scaled_a, scaled_b = (a + shift) * factor, (b + shift) * factor
        self.current = (name, a, b, exponent, shift)
        extent = max(np.abs(scaled_a).max(), np.abs(scaled_b).max())
        both = np.vstack([scaled_a, scaled_b])
        pair_size = float((both.max(axis=0) - both.min(axis=0)).max()) if np.isfinite(extent) else math.inf
        if not np.isfinite(extent) or extent > MAX_COORDINATE or 0.0 < pair_size < MIN_PAIR_SIZE:
            self.check_refused(scaled_a, scaled_b, extent, pair_size, detail)
            return
        if (scaled_a / factor - shift != a).any() or (scaled_b / factor - shift != b).any():
            return  # scaling lost bits (subnormal range): the reference would not be exact
        try:
            ref = reference_contact(a, b)
        except QhullError:
            self.skipped += 1
            return
        contact = self.collide(scaled_a, scaled_b, detail)
        if contact is None:
            return
        self.statuses[contact.solver_status] += 1
        size = ref.size * factor
        truth = ref.signed_distance * factor
        # Qhull is not exact on very thin differences: a reference below the gap the pair shows along
        # the contact's normal (an exact lower bound on the signed distance) is wrong, not the contact.
        gap = float((scaled_b @ contact.normal).min() - (scaled_a @ contact.normal).max())
        if truth < gap - REFERENCE_SLACK * size - 1e-15 * max(np.abs(scaled_a).max(), np.abs(scaled_b).max()):
            self.skipped += 1
            return
        witness_gap = float(np.linalg.norm(contact.point_a - contact.point_b))
        if contact.signed_distance > 0.0 and truth > witness_gap + 2.0 * contact.tolerance + REFERENCE_SLACK * size:
            self.skipped += 1  # the witness points (checked on their shapes below) are closer than Qhull says
            return
        # The inputs are exact: the answer owes nothing to how far from the origin they are.
        slack = _reference_slack(ref, a, b) * factor
        self.check_contact(contact, truth, size, slack, scaled_a, scaled_b, factor, shift, detail)
        self.check_invariance(contact, scaled_a, scaled_b, size, ref, rng, detail)

    def check_refused(self, a, b, extent, pair_size, detail) -> None:
        self.calls += 1
        self.count("calls")
        try:
            core.collide(a, b)
        except ValueError as exc:
            if not any(word in str(exc) for word in ("points_a", "points_b")):
                self.fail("refused", 1.0, f"{detail}: unnamed refusal {exc}")
            return
        except Exception as exc:  # noqa: BLE001
            self.fail(f"exception:{type(exc).__name__}", 1.0, f"{detail}: {exc!r}")
            return
        self.fail("not_refused", 1.0, f"{detail}: extent {extent:.3g}, pair size {pair_size:.3g}")

    def check_contact(self, contact, truth, size, slack, a, b, factor, shift, detail) -> None:
        tol = contact.tolerance
        sd = contact.signed_distance
        low, high = contact.bounds
        status = contact.solver_status
        if not np.isfinite([sd, low, high]).all() or not np.isfinite(contact.normal).all():
            self.fail("value", math.inf, f"{detail}: non-finite answer {contact}")
            return
        if not low - slack <= truth <= high + slack:
            self.fail("bounds", max(low - truth, truth - high) / size,
                      f"{detail}: truth {truth!r} outside {contact.bounds} ({status})")
        if status in ("converged", "degenerate") and abs(sd - truth) > SAME_ANSWER * size + slack:
            self.fail("value", abs(sd - truth) / size, f"{detail}: {sd!r} vs {truth!r} ({status})")
        if status == "converged":
            # The normal achieves the value: the shapes are sd apart along it, up to the tolerance (else the
            # witness points are off the support planes), measured on the exact unshifted points.
            unshifted_a, unshifted_b = a / factor - shift, b / factor - shift
            n = contact.normal
            short = sd / factor - (float((unshifted_b @ n).min()) - float((unshifted_a @ n).max()))
            reach = max(float(np.abs(unshifted_a).max()), float(np.abs(unshifted_b).max()))
            allowed = (max(SAME_ANSWER * size, tol) + slack) / factor + 1e-15 * reach
            if short > allowed:
                self.fail("normal", short * factor / size,
                          f"{detail}: the shapes are {short * factor / size:.3g} x size nearer along the normal "
                          f"than the value says ({contact.status})")
        if status == "converged" and high - low > tol * (1.0 + 1e-9):
            self.fail("loose", (high - low) / tol, f"{detail}: bounds {contact.bounds} vs tolerance {tol:.3g}")
        if abs(truth) > tol + slack:
            expected = "penetrating" if truth < 0 else "separated"
            if contact.status != expected:
                self.fail("status", abs(truth) / size, f"{detail}: {contact.status} for truth {truth!r}")
        coordinate = max(np.abs(a).max(), np.abs(b).max())
        rounding = 1e-14 * coordinate
        gap = contact.point_a - contact.point_b + sd * contact.normal
        if np.abs(gap).max() > 1e-12 * size + rounding:
            self.fail("convention", np.abs(gap).max() / size, f"{detail}: point_a - point_b off by {gap}")
        for label, point, cloud_points in (("point_a", contact.point_a, a), ("point_b", contact.point_b, b)):
            try:
                hull = ExactHull(cloud_points / factor - shift)
            except QhullError:
                continue
            off = hull.distance(point / factor - shift) * factor
            allowed = tol + rounding + (FLAT_TOLERANCE * hull.size * factor if hull.dimension < 3 else 0.0)
            if _near_degenerate(cloud_points, float(np.ptp(cloud_points, axis=0).max())):
                allowed += SAME_ANSWER * size  # Qhull's hull of a needle or sliver is only that exact
            if off > allowed:
                self.fail("witness", off / size, f"{detail}: {label} {off:.3g} off its shape ({status})")

    def check_invariance(self, contact, a, b, size, ref, rng, detail) -> None:
        sd = contact.signed_distance
        # A normal is only determined when the gap is well above the coordinates' rounding.
        same = max(SAME_ANSWER * size, 2.0 * contact.tolerance)
        coordinate = max(np.abs(a).max(), np.abs(b).max())
        unique = ref.normal_unique and abs(contact.signed_distance) > 1e6 * max(1e-16 * coordinate, 1e-12 * size)
        swapped = self.collide(b, a, detail + " swapped")
        if swapped is not None:
            # A value known to the tolerance pins the normal down to about sqrt(2 tolerance / |value|).
            spread = 1e-6 + 2.0 * math.sqrt(2.0 * contact.tolerance / max(abs(sd), 1e-300))
            if abs(swapped.signed_distance - sd) > same or (
                    unique and np.abs(swapped.normal + contact.normal).max() > spread):
                self.fail("swap", abs(swapped.signed_distance - sd) / size,
                          f"{detail}: {sd!r} vs swapped {swapped.signed_distance!r}")
        shift = size * 10.0 ** rng.uniform(-1, 3) * rng.normal(size=3)
        room = 0.5 * MAX_COORDINATE - max(np.abs(a).max(), np.abs(b).max())  # stay valid input
        if np.abs(shift).max() > room:
            shift *= max(room, 0.0) / np.abs(shift).max()
        moved_a, moved_b = a + shift, b + shift
        # Moved points are rounded to their new place: the exact answer moves by up to that rounding.
        rounded = 4.0 * 2.0 ** -53 * max(np.abs(moved_a).max(), np.abs(moved_b).max())
        moved = self.collide(moved_a, moved_b, detail + " translated")
        if moved is not None and abs(moved.signed_distance - sd) > same + rounded:
            self.fail("translate", abs(moved.signed_distance - sd) / size,
                      f"{detail}: {sd!r} vs translated {moved.signed_distance!r}")
        self.calls += 1
        self.count("calls")
        batched = collide_many([a], [b])[0]  # the batched path (GJK in lockstep) answers as collide does
        if abs(batched.signed_distance - sd) > same or batched.status != contact.status:
            self.fail("batch", abs(batched.signed_distance - sd) / size,
                      f"{detail}: {sd!r} ({contact.status}) vs batched {batched.signed_distance!r} ({batched.status})")
        shuffled = self.collide(a[rng.permutation(len(a))], b[rng.permutation(len(b))], detail + " reordered")
        if shuffled is not None and abs(shuffled.signed_distance - sd) > same:
            self.fail("order", abs(shuffled.signed_distance - sd) / size,
                      f"{detail}: {sd!r} vs reordered {shuffled.signed_distance!r}")

    def report(self, seconds: float) -> str:
        lines = [f"{self.calls} collide calls in {seconds:.0f} s; solver status {dict(self.statuses)}; "
                 f"{self.skipped} cases skipped (Qhull could not hull the pair, or got it wrong)",
                 f"failures: {sum(self.failures.values())}"]
        for kind, count in sorted(self.failures.items()):
            amount, detail = self.worst[kind]
            lines.append(f"  {kind:24} {count:6}  worst {amount:.3g}: {detail[:300]}")
        lines.append("per class: " + "; ".join(f"{klass} {tally['pairs']} pairs, {tally['calls']} calls, "
                                               f"{tally['failures']} failures"
                                               for klass, tally in self.by_class.items()))
        return "\n".join(lines)


#: Input classes: class -> (pair, frame). 'mixed' is the near-degenerate pairs at scales 2^-560 .. 2^340 and
#: offsets up to 1e4 x size; the others are touching faces under rotations, shapes a few micrometres across
#: about 1e8 from the origin, and scales anywhere across the accepted range.
CLASSES = {"mixed": (random_pair, random_frame), "touching-rotated": (touching_pair, random_frame),
           "tiny-far": (tiny_far_pair, tiny_far_frame), "extreme-scale": (extreme_pair, extreme_frame)}


def fuzz(seed: int, count: int, classes=("mixed",)) -> Fuzzer:
    """Run ``count`` seeded cases, taking the ``classes`` in turn."""
    rng = np.random.default_rng(seed)
    fuzzer = Fuzzer()
    for case in range(count):
        fuzzer.klass = classes[case % len(classes)]
        make_pair, make_frame = CLASSES[fuzzer.klass]
        name, a, b = make_pair(rng)
        exponent, offset = make_frame(rng)
        a, b, shift = dyadic_shift(a, b, offset, rng)
        fuzzer.run_case(name, a, b, exponent, shift, rng)
    return fuzzer


def dyadic_shift(a: np.ndarray, b: np.ndarray, offset: float, rng: np.random.Generator):
    """A shift of about ``offset`` sizes (none for 0), much larger than the points, and the points
    rounded so that ``(p + shift) - shift == p`` exactly: the reference then sees the very pair."""
    if not offset:
        return a, b, np.zeros(3)
    reach = max(np.abs(a).max(), np.abs(b).max())
    shift = rng.choice([-1.0, 1.0], size=3) * (4.0 * reach + offset * _size(a, b) * rng.uniform(1, 2, 3))
    return (a + shift) - shift, (b + shift) - shift, shift


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=6000, help="number of pairs (about 3.6 calls each)")
    parser.add_argument("--save", type=Path, help="directory for the worst pair of each failure kind (.npz)")
    parser.add_argument("--core", help="directory holding the `core` package to fuzz (default: this checkout)")
    parser.add_argument("--classes", default="mixed", help=f"comma-separated classes taken in turn, or 'all': "
                                                          f"{', '.join(CLASSES)} (default: mixed)")
    args = parser.parse_args()
    classes = list(CLASSES) if args.classes == "all" else args.classes.split(",")
    start = time.perf_counter()
    fuzzer = fuzz(args.seed, args.count, classes)
    print(f"seed {args.seed}, {args.count} pairs ({', '.join(classes)}), core from {Path(core.__file__).parent}")
    print(fuzzer.report(time.perf_counter() - start))
    if args.save:
        fuzzer.save(args.save)


if __name__ == "__main__":
    main()
