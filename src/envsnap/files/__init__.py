"""Files on disk: atomic writes, and reading input files within bounds."""
