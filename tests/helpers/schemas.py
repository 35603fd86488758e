"""Whether the installed pydantic writes the published JSON Schema files byte for byte.

The files in schemas/ are generated with pydantic 2.11 or later. Older generators write the
same schema in other words, measured from 2.6.0 to 2.11.10: a described reference as
`allOf: [{"$ref": ...}]` before 2.9, `enum` beside `const` before 2.10, and free-form objects
without `"additionalProperties": true` before 2.11. The lowest-versions CI job runs there.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
from packaging.version import Version

WRITES_PUBLISHED_SCHEMAS = Version(version("pydantic")) >= Version("2.11")

published_schema_bytes = pytest.mark.skipif(
    not WRITES_PUBLISHED_SCHEMAS,
    reason="pydantic < 2.11 writes the published schemas in other words (same schema)",
)
