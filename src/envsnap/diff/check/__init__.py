"""`envsnap check`: a reproducibility lint over one manifest (or the current environment).

`check_document(document, target)` returns an `envsnap.diff.report.Report` of kind "check". The rules
are data in `catalog.py`; the code that applies them is in `lints.py`.
"""

from envsnap.diff.check.catalog import CHECK_RULES
from envsnap.diff.check.runner import check_document

__all__ = ["CHECK_RULES", "check_document"]
