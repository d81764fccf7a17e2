"""Scene data of Collision Inspector, saved with the .blend: the settings (``settings``), one stored result per
analysed pair (``result``) and the enum items both use (``enums``)."""
