"""Review states across analyses: which verdicts carry over, which pairs became 'resolved'.

Pure Python (no bpy): results are matched by their pair of object names, in either order; the analyse
operator applies the answer to the scene's results.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

#: Statuses that count as a clash (a separated pair has nothing to review).
CLASHING = frozenset({'penetrating', 'touching', 'clearance'})


class Previous(NamedTuple):
    """One result of the earlier analysis: its pair, status and review state."""

    pair: tuple[str, str]
    status: str
    review_state: str


def pair_key(pair: tuple[str, str]) -> frozenset:
    """The identity of a pair of objects, whichever of them is A."""
    return frozenset(pair)


def is_vanished_clash(status: str, review_state: str) -> bool:
    """True for a stored clash that a later analysis no longer found: it is kept in the list, marked
    'resolved', with its last (no longer true) numbers; the overlay and reports leave it out."""
    return status in CLASHING and review_state == 'resolved'


def review_states(previous: list[Previous], current: list[tuple[tuple[str, str], str]]) -> tuple[list[str], list[int]]:
    """``(state of each current result, indices of previous results to keep as 'resolved')``.

    ``current`` holds ``(pair, status)`` of the new analysis. A pair that still clashes keeps its
    reviewer's state (unless it was 'resolved': clashing again makes it 'new'); a pair that clashed
    before and now is separated becomes 'resolved'; everything else is 'new'. Earlier clashes (and
    earlier resolved pairs) missing from the new results are kept as 'resolved'.
    """
    if not previous:
        return ['new'] * len(current), []
    before = {pair_key(item.pair): item for item in previous}
    states, present = [], set()
    for pair, status in current:
        key = pair_key(pair)
        present.add(key)
        old = before.get(key)
        was_open = old is not None and old.status in CLASHING and old.review_state != 'resolved'
        if status in CLASHING:
            states.append(old.review_state if was_open else 'new')
        else:
            states.append('resolved' if was_open or (old is not None and old.review_state == 'resolved') else 'new')
    vanished = [
        index for index, item in enumerate(previous)
        if pair_key(item.pair) not in present and (item.status in CLASHING or item.review_state == 'resolved')
    ]
    return states, vanished


def with_review_states(clashes: list, previous: list[Previous]) -> list:
    """``ClashResult``s (``clash_report``) with the review states ``review_states`` gives them, e.g. for a
    command-line report of a .blend whose stored results were reviewed in the panel."""
    states, _vanished = review_states(previous, [((c.object_a, c.object_b), c.status) for c in clashes])
    return [dataclasses.replace(clash, review_state=state) for clash, state in zip(clashes, states)]
