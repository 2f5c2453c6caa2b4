"""axe-core in the browser tests (the copy bundled by axe-playwright-python; no npm): the
WCAG 2.x A/AA rules the site is held to, and the serious or critical findings of a page
as one readable line each."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe

AXE = Axe()
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"],
    },
    "resultTypes": ["violations"],
}
SERIOUS = frozenset({"serious", "critical"})


def serious_violations(page, context: dict | None = None) -> list[str]:
    """The page's serious and critical violations: rule, impact and up to three of the
    elements (their HTML, cut short)."""
    results = AXE.run(page, context=context, options=AXE_OPTIONS)
    return [
        f"{v['id']} ({v['impact']}): {[n['html'][:120] for n in v['nodes'][:3]]}"
        for v in results.response["violations"]
        if v.get("impact") in SERIOUS
    ]
