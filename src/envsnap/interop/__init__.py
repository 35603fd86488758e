"""Other tools' records in and out: importers, exporters, tracker integrations, signing."""
