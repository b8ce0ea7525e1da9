"""Lenses: pure functions that each turn one lesson about tokenization into numbers, for the Lenses pane and CLI."""
