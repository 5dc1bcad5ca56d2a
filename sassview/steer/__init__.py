"""Steering: compile variants of a kernel (knobs, flags, architectures) and compare them."""
