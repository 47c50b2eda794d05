"""Emission of IR as readable Python modules."""
