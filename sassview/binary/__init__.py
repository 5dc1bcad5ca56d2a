"""Readers of compiled GPU binaries: the cubin ELF and the NVIDIA attribute sections inside it."""
