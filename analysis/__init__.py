"""The Blender-side engine between ``core`` and the interface: reads evaluated geometry, runs the checks,
builds reports and stores results. No Operator, panel or drawing code: ``operators/`` call it, ``ui/`` reads
what it stored (docs/architecture.md, "Blender side").
"""
