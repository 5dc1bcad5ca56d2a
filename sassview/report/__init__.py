"""What `sassview check` says of a kernel: the summary data (the JSON output's schema) and the
words every view shares (finding counts, access widths). The CLI report, the TUI header and
the JSON export all read it, so it sits below every view and imports none of them.
"""
