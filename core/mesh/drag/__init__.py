"""Answers for pairs that moved by a translation since their last exact answer."""
