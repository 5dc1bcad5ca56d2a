"""What `sassview check` says of a kernel: the summary data (the JSON output's schema) and the
words every view shares (finding counts, access widths), and a kernel's listing as text with
its canonical form and the rules that classify a change in it (listing, normalize, classify:
what FileCheck, the pytest plugin, the baseline gate and `diff` all read). The CLI report, the
TUI header and the JSON export all read it, so it sits below every view and imports none of
them.
"""
