"""Readers of compiler listings (PTX, SASS, line tables) into the records of `sassview.ir`."""
