"""Modal screens: help, prompts, pickers, instruction help, IR stages."""
