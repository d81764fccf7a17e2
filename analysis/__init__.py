"""The Blender-side engine between ``core`` and the interface.

It reads the evaluated world-space geometry of objects, builds the core's shapes, runs the clash check
(``clash.check_scene``), turns its answers into reports (``clash_report``) and stored results
(``store``), and orders them for review (``ordering``, ``review``). No Operator, panel or drawing code
lives here: ``operators/`` calls into it and ``ui/`` reads what it stored.
"""
