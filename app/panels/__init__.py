"""Docked panels: each takes the editor (document, tool state, undo stack) and observes the document."""
