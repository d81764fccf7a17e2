"""Label texts drawn once into one texture, then drawn every redraw as textured quads in a single batch.

Drawing a hundred texts with ``blf.draw`` on every redraw costs a draw call and a flush each; the
atlas turns that into one batch, rebuilt only when the texts, colours or font size change. Needs a
GPU context (create it inside a draw callback, or after ``snapshot.ensure_gpu`` in background mode).
"""

from __future__ import annotations

import math

import blf
import gpu
import numpy as np
from gpu_extras.batch import batch_for_shader
from mathutils import Matrix

FONT_ID = 0
PADDING_PX = 3  # room for the shadow around each text
MAX_WIDTH_PX = 1024


class LabelAtlas:
    """Texts in their colours with a dark shadow, packed in rows of equal height in one RGBA texture."""

    def __init__(self, texts: tuple[str, ...], colors: np.ndarray, size_px: float) -> None:
        blf.size(FONT_ID, size_px)
        widths = [math.ceil(blf.dimensions(FONT_ID, text)[0]) + 2 * PADDING_PX for text in texts]
        self.descent = math.ceil(0.3 * size_px)  # room below the baseline for descenders
        slot_height = math.ceil(1.3 * size_px) + 2 * PADDING_PX
        self.slots = _pack_rows(widths, slot_height, max(MAX_WIDTH_PX, max(widths, default=1)))
        self.width = int(max(self.slots[:, 0] + self.slots[:, 2], default=1))
        self.height = int(max(self.slots[:, 1] + self.slots[:, 3], default=1))
        self.texture = gpu.types.GPUTexture((self.width, self.height), format='RGBA8')
        self._draw_texts(texts, colors, size_px)

    def _draw_texts(self, texts, colors, size_px: float) -> None:
        """Draw into the texture; the caller's framebuffer and viewport are bound again afterwards.

        (A framebuffer's ``bind()`` restores the previous one; ``GPUOffScreen.bind()`` would restore
        the window's, which breaks drawing inside a viewport callback or another offscreen.)
        """
        framebuffer = gpu.types.GPUFrameBuffer(color_slots=self.texture)
        viewport = gpu.state.viewport_get()
        with framebuffer.bind(), gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
            gpu.state.viewport_set(0, 0, self.width, self.height)
            framebuffer.clear(color=(0.0, 0.0, 0.0, 0.0))
            gpu.matrix.load_identity()
            gpu.matrix.load_projection_matrix(pixel_projection(self.width, self.height))
            blf.size(FONT_ID, size_px)
            blf.enable(FONT_ID, blf.SHADOW)
            blf.shadow(FONT_ID, 3, 0.0, 0.0, 0.0, 0.9)
            blf.shadow_offset(FONT_ID, 1, -1)
            for text, color, (x, y, _, _) in zip(texts, colors, self.slots):
                blf.color(FONT_ID, *map(float, color))
                blf.position(FONT_ID, x + PADDING_PX, y + PADDING_PX + self.descent, 0.0)
                blf.draw(FONT_ID, text)
            blf.disable(FONT_ID, blf.SHADOW)
        gpu.state.viewport_set(*viewport)

    def batch(self, anchors: np.ndarray, indices: np.ndarray):
        """Quads showing labels ``indices`` with their text baselines starting at ``anchors`` (pixels)."""
        if len(indices) == 0:
            return None
        positions, uvs = label_quads(
            np.round(anchors) - [PADDING_PX, PADDING_PX + self.descent], self.slots[indices],
            (self.width, self.height),
        )
        return batch_for_shader(gpu.shader.from_builtin('IMAGE'), 'TRIS', {"pos": positions, "texCoord": uvs})

    def draw(self, batch) -> None:
        """Draw a batch from ``batch`` in the current (pixel-space) matrices."""
        shader = gpu.shader.from_builtin('IMAGE')
        shader.bind()
        shader.uniform_sampler("image", self.texture)
        gpu.state.blend_set('ALPHA_PREMULT')  # the atlas was drawn onto transparent black
        batch.draw(shader)
        gpu.state.blend_set('NONE')


def pixel_projection(width: int, height: int) -> Matrix:
    """Projection for pixel coordinates (origin bottom left), as in POST_PIXEL callbacks."""
    return Matrix((
        (2.0 / width, 0.0, 0.0, -1.0),
        (0.0, 2.0 / height, 0.0, -1.0),
        (0.0, 0.0, -1.0, 0.0),
        (0.0, 0.0, 0.0, 1.0),
    ))


def _pack_rows(widths: list[int], height: int, max_width: int) -> np.ndarray:
    """Slots (x, y, width, height) for boxes of ``widths``, left to right in rows no wider than ``max_width``."""
    slots, x, y = [], 0, 0
    for width in widths:
        if x and x + width > max_width:
            x, y = 0, y + height
        slots.append((x, y, width, height))
        x += width
    return np.array(slots, dtype=np.int64).reshape(-1, 4)


def label_quads(origins: np.ndarray, slots: np.ndarray, atlas_size: tuple[int, int]):
    """Two triangles per label: screen positions (6K, 2) from ``origins`` and atlas coordinates (6K, 2)."""
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 0], [1, 1], [0, 1]], dtype=np.float64)
    sizes = slots[:, 2:4].astype(np.float64)
    offsets = corners[None] * sizes[:, None]  # (K, 6, 2)
    positions = origins[:, None, :] + offsets
    uvs = (slots[:, None, 0:2] + offsets) / np.asarray(atlas_size, dtype=np.float64)
    return positions.reshape(-1, 2).astype(np.float32), uvs.reshape(-1, 2).astype(np.float32)
