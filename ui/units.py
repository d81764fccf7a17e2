"""Lengths as text in the scene's units (metric, imperial or none), as Blender's own fields show them."""

import re

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


#: Below this (in the unit shown) a length is written in scientific notation: "3.06e-17 m", not seventeen zeros.
SMALLEST_POSITIONAL = 1e-6
#: Lengths written by Blender's unit system (adaptive units) are checked below this many metres: there its
#: smallest units run out of digits.
CHECKED_BELOW = 1e-3
#: The unit that tiny lengths are written in when the scene's unit is chosen per value (adaptive, separate units).
_TINY_LENGTH_UNITS = {'METRIC': (1.0, " m"), 'IMPERIAL': (0.0254, "\""), 'NONE': (1.0, "")}


#: Blender's length fields show at most 6 decimals of the unit they show: below half the last one they read 0.
SMALLEST_SHOWN = 5e-7


def length_unit(scene: bpy.types.Scene) -> float:
    """Blender units per unit that the scene's length fields show (its fixed length unit; else the base unit)."""
    units = scene.unit_settings
    fixed = _FIXED_LENGTH_UNITS.get(units.length_unit) if units.system != 'NONE' else None
    metres = fixed[0] if fixed is not None and not units.use_separate else 1.0
    return metres / (units.scale_length if units.scale_length > 0.0 else 1.0)


def format_length(value: float, scene: bpy.types.Scene, precision: int = 3) -> str:
    """``value`` (Blender units, i.e. metres at unit scale 1) as the scene displays lengths.

    Honours the unit system, the unit scale (``scale_length``), a fixed length unit (e.g. always
    millimetres) and "Separate Units" (``1' 2"``). ``precision`` is the number of digits Blender keeps.
    Never "-0 m"; a length too small for those digits is written in scientific notation ("1e-9 m"),
    neither rounded to zero nor spelled out with a line of zeros.
    """
    units = scene.unit_settings
    scaled = value * units.scale_length + 0.0  # + 0.0: -0.0 becomes 0.0
    fixed = _FIXED_LENGTH_UNITS.get(units.length_unit)
    if units.system != 'NONE' and fixed is not None and not units.use_separate:
        metres_per_unit, suffix = fixed
        return f"{_significant(scaled / metres_per_unit, precision)}{suffix}"
    text = bpy.utils.units.to_string(
        units.system,
        'LENGTH',
        scaled,
        precision=precision,
        split_unit=units.use_separate,
        compatible_unit=False,
    ).strip()
    if scaled == 0.0:
        return text.lstrip("-")
    if abs(scaled) >= CHECKED_BELOW or _reads_back(text, scaled, units.system, precision):
        return text
    metres_per_unit, suffix = _TINY_LENGTH_UNITS[units.system]
    return f"{_scientific(scaled / metres_per_unit, precision)}{suffix}"


def _reads_back(text: str, value: float, system: str, precision: int) -> bool:
    """True when Blender's unit parser reads ``text`` back as ``value`` to ``precision`` digits (Blender writes
    lengths below its smallest unit as "0 m" or "0.000001'", one digit)."""
    try:
        parsed = float(text) if system == 'NONE' else bpy.utils.units.to_value(system, 'LENGTH', text)
    except ValueError:
        return False
    return abs(parsed - value) <= 0.5 * 10.0 ** (1 - precision) * abs(value)


def _significant(number: float, digits: int) -> str:
    """``number`` with ``digits`` significant digits (all of its integer digits when it has more), in
    positional notation: "12.4", "0.0000123", "1235" (scientific below ``SMALLEST_POSITIONAL``: "3.06e-17");
    never the float's binary noise, never "-0"."""
    digits = max(digits, 1)
    number += 0.0
    # the notation follows the rounded number: 9.99999e-7 is written as 1e-6 is
    if number != 0.0 and abs(float(f"{number:.{digits}g}")) < SMALLEST_POSITIONAL:
        return _scientific(number, digits)
    if abs(number) >= 10 ** digits:
        return f"{number:.0f}"
    return np.format_float_positional(number, precision=digits, unique=False, fractional=False, trim='-')


def _scientific(number: float, digits: int) -> str:
    """``number`` with ``digits`` significant digits in scientific notation, exponent unpadded: "3.06e-17",
    "1e-9"."""
    return re.sub(r"e([-+])0*(\d)", lambda match: f"e{match[1].replace('+', '')}{match[2]}", f"{number:.{digits}g}")


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
