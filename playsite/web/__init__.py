"""The web client playsite serves itself: pages under `pages/`, plain ES modules and CSS under
`assets/` (no build step), served by `routes.py` with content-hashed asset names (docs/web.md)."""
