"""Webhook push: registrations and their store, delivery of `yourTurn` through the pinned transport, routes."""
