"""Label texts drawn once into texture pages of bounded size, then drawn every redraw as textured quads, one
batch per page instead of a ``blf.draw`` per label (docs/architecture.md, "The overlay"). Needs a GPU
context (a draw callback, or ``snapshot.ensure_gpu`` in background mode).
"""

from __future__ import annotations

import math

import blf
import gpu
import numpy as np
from gpu_extras.batch import batch_for_shader
from mathutils import Matrix

FONT_ID = 0
PADDING_PX = 3  # room for the shadow around each text, on the label's backdrop
#: Each label sits on a dark, nearly opaque backdrop (straight RGBA): readable over curves, contact regions and
#: objects of any colour, its own colour included.
BACKDROP_RGBA = (0.05, 0.05, 0.05, 0.78)
PAGE_WIDTH = 2048
PAGE_HEIGHT = 1024
#: The owner starts a new atlas rather than grow past this many pages (32 MB of RGBA8).
MAX_PAGES = 8


class LabelAtlas:
    """Texts in their colours with a dark shadow on a dark backdrop, packed in rows of equal height in RGBA texture
    pages."""

    def __init__(self, size_px: float) -> None:
        self.size_px = size_px
        self.descent = math.ceil(0.3 * size_px)  # room below the baseline for descenders
        self.slot_height = min(math.ceil(1.3 * size_px) + 2 * PADDING_PX, PAGE_HEIGHT)
        self.pages: list[gpu.types.GPUTexture] = []
        self.slots: dict = {}  # (text, rgba) -> (page, x, y, width, height)
        self._cursor = (0, 0)  # where the next text goes on the last page

    @property
    def full(self) -> bool:
        """True once the atlas holds ``MAX_PAGES`` pages (the owner should start afresh)."""
        return len(self.pages) >= MAX_PAGES

    def place(self, texts: list[str], colors: np.ndarray) -> np.ndarray:
        """Slots ``(page, x, y, width, height)`` (K, 5) of the texts in their colours, drawing the new ones."""
        keys = list(zip(texts, map(tuple, np.round(np.asarray(colors, dtype=np.float64), 4).tolist())))
        missing = list(dict.fromkeys(key for key in keys if key not in self.slots))
        if missing:
            self._add(missing)
        return np.array([self.slots[key] for key in keys], dtype=np.int64).reshape(-1, 5)

    def _add(self, keys: list) -> None:
        blf.size(FONT_ID, self.size_px)
        new_by_page: dict[int, list] = {}
        for key in keys:
            width = min(math.ceil(blf.dimensions(FONT_ID, key[0])[0]) + 2 * PADDING_PX, PAGE_WIDTH)
            x, y = self._cursor
            if not self.pages or (x and x + width > PAGE_WIDTH and y + 2 * self.slot_height > PAGE_HEIGHT):
                self.pages.append(None)  # texture made below, once its size is known
                x, y = 0, 0
            elif x and x + width > PAGE_WIDTH:
                x, y = 0, y + self.slot_height
            page = len(self.pages) - 1
            self.slots[key] = (page, x, y, width, self.slot_height)
            new_by_page.setdefault(page, []).append(key)
            self._cursor = (x + width, y)
        for page, page_keys in new_by_page.items():
            if self.pages[page] is None:
                self.pages[page] = gpu.types.GPUTexture((PAGE_WIDTH, PAGE_HEIGHT), format='RGBA8')
                self._draw_texts(page, page_keys, clear=True)
            else:
                self._draw_texts(page, page_keys, clear=False)

    def _draw_texts(self, page: int, keys: list, clear: bool) -> None:
        """Draw texts into a page; the caller's framebuffer and viewport are bound again afterwards.

        (A framebuffer's ``bind()`` restores the previous one; ``GPUOffScreen.bind()`` would restore
        the window's, which breaks drawing inside a viewport callback or another offscreen.)
        """
        framebuffer = gpu.types.GPUFrameBuffer(color_slots=self.pages[page])
        viewport = gpu.state.viewport_get()
        with framebuffer.bind(), gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
            gpu.state.viewport_set(0, 0, PAGE_WIDTH, PAGE_HEIGHT)
            if clear:
                framebuffer.clear(color=(0.0, 0.0, 0.0, 0.0))
            gpu.matrix.load_identity()
            gpu.matrix.load_projection_matrix(pixel_projection(PAGE_WIDTH, PAGE_HEIGHT))
            self._draw_backdrops(keys)
            blf.size(FONT_ID, self.size_px)
            blf.enable(FONT_ID, blf.SHADOW)
            blf.shadow(FONT_ID, 3, 0.0, 0.0, 0.0, 0.9)
            blf.shadow_offset(FONT_ID, 1, -1)
            for text, color in keys:
                _page, x, y, _width, _height = self.slots[(text, color)]
                blf.color(FONT_ID, *map(float, color))
                blf.position(FONT_ID, x + PADDING_PX, y + PADDING_PX + self.descent, 0.0)
                blf.draw(FONT_ID, text)
            blf.disable(FONT_ID, blf.SHADOW)
        gpu.state.viewport_set(*viewport)

    def _draw_backdrops(self, keys: list) -> None:
        """Fill the texts' slots with ``BACKDROP_RGBA``, premultiplied as the page holds its pixels."""
        slots = np.array([self.slots[key][1:] for key in keys], dtype=np.float64).reshape(-1, 4)
        positions, _uvs = label_quads(slots[:, :2], slots, (PAGE_WIDTH, PAGE_HEIGHT))
        shader = gpu.shader.from_builtin('UNIFORM_COLOR')
        shader.bind()
        *rgb, alpha = BACKDROP_RGBA
        shader.uniform_float("color", (*(channel * alpha for channel in rgb), alpha))
        gpu.state.blend_set('NONE')
        batch_for_shader(shader, 'TRIS', {"pos": positions}).draw(shader)

    def batches(self, anchors: np.ndarray, slots: np.ndarray) -> list:
        """``[(page texture, batch)]`` of quads showing the labels in ``slots`` (from ``place``) with their
        text baselines starting at ``anchors`` (pixels)."""
        origins = np.round(anchors) - [PADDING_PX, PADDING_PX + self.descent]
        shader = gpu.shader.from_builtin('IMAGE')
        drawn = []
        for page in np.unique(slots[:, 0]).tolist():
            on_page = slots[:, 0] == page
            positions, uvs = label_quads(origins[on_page], slots[on_page, 1:], (PAGE_WIDTH, PAGE_HEIGHT))
            drawn.append((self.pages[page], batch_for_shader(shader, 'TRIS', {"pos": positions, "texCoord": uvs})))
        return drawn

    @staticmethod
    def draw(batches: list) -> None:
        """Draw ``batches`` (from ``batches``) in the current (pixel-space) matrices."""
        shader = gpu.shader.from_builtin('IMAGE')
        shader.bind()
        gpu.state.blend_set('ALPHA_PREMULT')  # the atlas was drawn onto transparent black
        for texture, batch in batches:
            shader.uniform_sampler("image", texture)
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


def label_quads(origins: np.ndarray, slots: np.ndarray, atlas_size: tuple[int, int]):
    """Two triangles per label: screen positions (6K, 2) from ``origins`` and atlas coordinates (6K, 2);
    ``slots`` are ``(x, y, width, height)`` in the atlas page."""
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 0], [1, 1], [0, 1]], dtype=np.float64)
    sizes = slots[:, 2:4].astype(np.float64)
    offsets = corners[None] * sizes[:, None]  # (K, 6, 2)
    positions = origins[:, None, :] + offsets
    uvs = (slots[:, None, 0:2] + offsets) / np.asarray(atlas_size, dtype=np.float64)
    return positions.reshape(-1, 2).astype(np.float32), uvs.reshape(-1, 2).astype(np.float32)
