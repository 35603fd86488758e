"""Exports of a manifest to formats other tools ingest."""
