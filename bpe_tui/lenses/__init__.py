"""Lenses in the app and the CLI: each lens declared once (``LensSpec``), listed in ``registry.LENSES``.

A lens's numbers come from a pure function in ``core.analysis.lenses``; its module here says what options
it takes, how to compute it from a :class:`~bpe_tui.lenses.spec.LensContext`, how to print it, and which
view draws it in the Lenses pane. Nothing here but ``views/`` imports Textual, so the CLI stays light.
"""
