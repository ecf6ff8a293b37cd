"""The event model: events, the reducer, timelines and summaries. Pure: no Textual here."""
