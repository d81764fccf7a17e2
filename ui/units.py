"""Lengths as text in the scene's units (metric, imperial or none), as Blender's own fields show them."""

import bpy
import numpy as np

# Scene "Length" units that fix the display unit: metres per unit, and the suffix Blender parses.
_FIXED_LENGTH_UNITS = {
    'KILOMETERS': (1e3, " km"),
    'METERS': (1.0, " m"),
    'CENTIMETERS': (1e-2, " cm"),
    'MILLIMETERS': (1e-3, " mm"),
    'MICROMETERS': (1e-6, " \u00b5m"),
    'MILES': (1609.344, " mi"),
    'FEET': (0.3048, "'"),
    'INCHES': (0.0254, "\""),
    'THOU': (2.54e-5, " thou"),
}


def format_length(value: float, scene: bpy.types.Scene, precision: int = 3) -> str:
    """``value`` (Blender units, i.e. metres at unit scale 1) as the scene displays lengths.

    Honours the unit system, the unit scale (``scale_length``), a fixed length unit (e.g. always
    millimetres) and "Separate Units" (``1' 2"``). ``precision`` is the number of digits Blender keeps.
    """
    units = scene.unit_settings
    scaled = value * units.scale_length
    if units.system == 'NONE':
        return bpy.utils.units.to_string('NONE', 'LENGTH', scaled, precision=precision).strip()
    fixed = _FIXED_LENGTH_UNITS.get(units.length_unit)
    if fixed is not None and not units.use_separate:
        metres_per_unit, suffix = fixed
        return f"{_significant(scaled / metres_per_unit, precision)}{suffix}"
    return bpy.utils.units.to_string(
        units.system,
        'LENGTH',
        scaled,
        precision=precision,
        split_unit=units.use_separate,
        compatible_unit=False,
    ).strip()


def _significant(number: float, digits: int) -> str:
    """``number`` with ``digits`` significant digits (all of its integer digits when it has more), in
    positional notation: "12.4", "0.0000123", "1235"; never the float's binary noise."""
    digits = max(digits, 1)
    if abs(number) >= 10 ** digits:
        return f"{number:.0f}"
    return np.format_float_positional(number, precision=digits, unique=False, fractional=False, trim='-')


_SUPERSCRIPTS = {2: "\u00b2", 3: "\u00b3"}


def format_area(value: float, scene: bpy.types.Scene, precision: int = 3) -> str:
    """An area (Blender units²) in the scene's unit system, e.g. "0.5 m²"."""
    return _format_power(value, scene, 'AREA', 2, precision)


def format_volume(value: float, scene: bpy.types.Scene, precision: int = 3) -> str:
    """A volume (Blender units³) in the scene's unit system, e.g. "0.08 m³"."""
    return _format_power(value, scene, 'VOLUME', 3, precision)


def _format_power(value: float, scene: bpy.types.Scene, category: str, power: int, precision: int) -> str:
    """A length to the ``power``: in the fixed length unit to that power (as lengths are shown in it), else
    as Blender's unit system writes it."""
    units = scene.unit_settings
    scaled = value * units.scale_length**power
    fixed = _FIXED_LENGTH_UNITS.get(units.length_unit)
    if units.system != 'NONE' and fixed is not None and not units.use_separate and fixed[1].startswith(" "):
        metres_per_unit, suffix = fixed
        return f"{_significant(scaled / metres_per_unit**power, precision)}{suffix}{_SUPERSCRIPTS[power]}"
    return bpy.utils.units.to_string(units.system, category, scaled, precision=precision,
                                     compatible_unit=False).strip()
