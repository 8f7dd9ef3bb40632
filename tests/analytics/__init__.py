"""Tests of playsite.analytics: the outbox pump against a real HTTP receiver."""
