"""Cells and stances: running a cell's code, the kernel's cell history, cells named as the
notebook shows them, torch's stance per cell."""
