"""The Lenses pane's views: one widget a lens, each a :class:`~bpe_tui.lenses.views.base.LensView`."""
