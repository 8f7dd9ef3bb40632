"""axe-core, the accessibility checker, for the browser tests: npm's `axe-core` (version pinned
in tests/support/axe/package.json and package-lock.json), installed with `npm ci` on first use
into tests/support/axe/node_modules (not committed). Used in tests only, never served.

    violations = serious_violations(page)   # after the page has settled

The pages' CSP forbids inline scripts, so the context that runs axe is made with
`bypass_csp=True`; axe only reads the page.
"""

from __future__ import annotations

import functools
from pathlib import Path

from tests.support.npm import npm_installed

HERE = Path(__file__).resolve().parent / "axe"
SERIOUS = ("serious", "critical")


@functools.cache
def axe_source() -> str:
    """The text of axe.min.js, after `npm ci` of the pinned version when it is not there yet."""
    return npm_installed(HERE, "axe-core/axe.min.js", "the accessibility tests").read_text(encoding="utf-8")


def serious_violations(page) -> list[dict]:
    """axe's serious and critical violations on the page as it is now: [{id, impact, targets, summary}]."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "targets": [node["target"] for node in violation["nodes"]],
            "summary": violation["nodes"][0].get("failureSummary", ""),
        }
        for violation in result["violations"]
        if violation["impact"] in SERIOUS
    ]
