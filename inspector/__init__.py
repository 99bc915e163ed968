"""Replay Inspector: check Open Responses transcripts before replaying them to another model."""

__version__ = "0.1.0"
