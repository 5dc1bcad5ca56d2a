"""The TUI's widgets; each reads a KernelView the app hands it and posts messages back."""
