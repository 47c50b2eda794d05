"""NumPy rules, both modes: placeholder."""
