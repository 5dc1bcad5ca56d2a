"""The graphs the analyses read: basic blocks and edges (`cfg`), loops and their nesting (`loops`).

Everything here is built from the frozen model in `sassview.ir` and is itself frozen; nothing
here parses, runs a tool or knows about an analysis or a view.
"""
