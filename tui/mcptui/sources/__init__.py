"""Event sources that fill a session: replay of a file now, live runs later. No Textual."""
