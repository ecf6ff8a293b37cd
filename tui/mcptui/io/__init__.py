"""Reading and writing what mcptui keeps: recordings (and, as they move here, importers,
archives and redaction). Pure: no Textual."""
