"""Thin readers of the model: the CLI, and later the TUI, pytest plugin and exporters."""
