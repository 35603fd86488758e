"""Renderers turn reports and manifests into text. They return strings and never print."""
