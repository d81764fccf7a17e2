"""The numbers that Blender's float properties hold, as the decimals the user typed.

A FloatProperty stores single precision: 1e-5 typed reads back as 9.999999747378752e-06. The checks and
their reports use the shortest decimal that is the same single-precision number (1e-05).
"""

import numpy as np


def typed_decimal(value: float) -> float:
    """``value``, read from a single-precision property, as the shortest decimal that property holds:
    1e-05, not 9.999999747e-06."""
    return float(str(np.float32(value)))
