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


# The two looks every page gets: a phone in Japanese, a laptop in English (viewport,
# browser locale, site language), by case name.
CASES = {
    "phone-ja": ({"width": 390, "height": 844}, "ja-JP", "ja"),
    "laptop-en": ({"width": 1366, "height": 900}, "en-US", "en"),
}


class PageLook:
    """What each browser test checks on every page it visits: a full-page screenshot
    (``SHOTS/<case>-NN-<name>.png``, looked at by whoever changes the page), no sideways
    scrolling at the viewport's width, and no serious axe-core finding. Call it with a
    short name after each step; ``problems`` collects what was wrong, asserted empty at
    the end so that one run reports every page."""

    def __init__(self, page, case: str, width: int, shots) -> None:
        self.page, self.case, self.width, self.shots = page, case, width, shots
        self.count = 0
        self.problems: list[str] = []

    def __call__(self, name: str) -> None:
        page = self.page
        page.wait_for_load_state()
        self.count += 1
        prefix = f"{self.case}-{self.count:02d}-{name}"
        page.screenshot(path=str(self.shots / f"{prefix}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > self.width:
            self.problems.append(f"{prefix}: the page is {width}px wide")
        if serious := serious_violations(page):
            self.problems.append(f"{prefix}: {'; '.join(serious)}")
