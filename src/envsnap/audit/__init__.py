"""`envsnap audit`: known silent-correctness bugs and default flips, checked against manifests.

The database (`db/`, one OSV file per advisory) says which package versions are affected and,
in `database_specific.envsnap`, which conditions of the run must also hold (GPU generation,
torch settings, environment variables, trainer settings). The engine evaluates it against a
manifest's JSON; renderers print tables, markdown, JSON and SARIF.
"""

from __future__ import annotations

from envsnap.audit.database import Advisory, Database, load
from envsnap.audit.engine import audit_document
from envsnap.audit.results import AuditFinding, AuditResult

__all__ = ["Advisory", "AuditFinding", "AuditResult", "Database", "audit_document", "load"]
