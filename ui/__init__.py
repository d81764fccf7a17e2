"""The interface: scene data (``properties``), the sidebar panels and the viewport overlay; it reads results only."""
