"""Operator classes only: thin, they call ``analysis`` and store or report what it returns."""
