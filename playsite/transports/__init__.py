"""Outbound HTTP to addresses a client gave us: resolved, checked and pinned before any connect."""
