"""The manifest: its model (`model.py`, `sections/`), canonical form, digest and reference data.

Nothing here runs a collector or compares two manifests; both sides build on this package.
"""
