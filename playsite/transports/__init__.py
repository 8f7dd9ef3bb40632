"""Adapters between real connections and a room's Subscriber/command surface."""
