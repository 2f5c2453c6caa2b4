"""The event's public pages that every phone in the hall polls: the event page, the
standings and a round's pairings.

Each page is a frame rendered per request (the site header, the viewer's own row, staff
links, messages) around a block built once per event revision and language and served
from the cache (:mod:`tournaments.pagecache`, :mod:`tournaments.snapshots`). A request
costs one query (the event, its revision and the viewer's access) and a few cache reads;
a phone that already has the page gets a 304. Long lists come in pages of about 200 rows
with a search (a name, or a table number) and a link to the viewer's own row.
"""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.views.decorators.http import require_safe

from . import pagecache, policy, round_data, selectors, snapshots
from .bracket_texts import result_badge, result_label
from .models import EventState, RoundStatus
from .services.standings import TIEBREAK_LABELS
from .views import ACTIVE_STATUSES, OPEN_EVENT_STATES, _working, percent, positive_int_param
from .views_home import (
    REGISTRATION_BADGES,
    STATE_BADGES,
    match_summary,
    registration_closed,
)

# Longest search text looked at (a name or a table number).
QUERY_LENGTH = 100
# What anyone may see: the shared blocks are built for this viewer.
PUBLIC = policy.EventAccess(user_id=None)
# Highest page number asked for that is looked up as such (beyond it: the last page).
MAX_PAGE = 10_000


def _query(request) -> str:
    return request.GET.get("q", "").strip()[:QUERY_LENGTH]


def _page_number(request) -> int:
    return min(positive_int_param(request, "page") or 1, MAX_PAGE)


def url_pattern(viewname: str, *args) -> tuple[str, str]:
    """The URL of ``viewname`` for ``args`` and one more id, split around that id: rows
    build their links as head + id + tail instead of reversing a URL per row."""
    sentinel = 987654321
    url = reverse(viewname, args=[*args, sentinel])
    head, tail = url.split(str(sentinel))
    return head, tail


def _pager(number: int, count: int, size: int = snapshots.PAGE_SIZE) -> dict:
    """What the page links need: this page, the number of pages, the rows shown."""
    pages = max(1, -(-count // size))
    number = min(number, pages)
    return {
        "number": number,
        "pages": pages,
        "count": count,
        "previous": number - 1 if number > 1 else None,
        "next": number + 1 if number < pages else None,
        "first_row": (number - 1) * size + 1 if count else 0,
        "last_row": min(number * size, count),
    }


# --- event page ----------------------------------------------------------------------------


def _event_facts(event, access: policy.EventAccess, decklists_public: bool) -> str:
    """The event's facts and the rounds ``access`` may see."""
    rounds = policy.rounds_visible_to(None, event, access).order_by("number")
    return render_to_string(
        "tournaments/_event_facts.html",
        {
            "event": selectors.event_with_counts(event),
            "state_badge": STATE_BADGES.get(event.state, "badge--muted"),
            "rounds": list(rounds),
            "decklists_public": decklists_public,
        },
    )


def _my_status(event, access: policy.EventAccess) -> str:
    """The viewer's own panel: registration, decklist, current match. Two queries (the
    registration, the match); built once per revision for each player."""
    registration = selectors.my_registration_status(access.registration_id)
    if registration is None:
        return ""
    report = registration.deck_report or {}
    match = selectors.current_match(registration.pk)
    return render_to_string(
        "tournaments/_my_status.html",
        {
            "event": event,
            "registration": registration,
            "status_badge": REGISTRATION_BADGES.get(registration.status, "badge--muted"),
            "deck_legal": report.get("legal"),
            "active": registration.status in ACTIVE_STATUSES,
            "can_change_decklist": registration.status in ACTIVE_STATUSES
            and event.state in OPEN_EVENT_STATES,
            "current": match_summary(event, match, registration.pk),
        },
    )


@require_safe
def event_detail(request, pk: int):
    """The event page: a signed-in player's own status first (registration, decklist,
    current match with one tap to it), then the facts and rounds (one block per revision
    and language, shared by every viewer but the staff). One query for everyone, and
    two more for a player when their panel is not cached yet."""
    event, access = selectors.viewed_event(request.user, pk)
    revision = snapshots.revision_of(event).number
    decklists_public = policy.decklists_public(event)
    closed = registration_closed(event, timezone.now())
    tag = pagecache.etag(
        request,
        "event",
        event.pk,
        revision,
        decklists_public,
        closed is None,
        *pagecache.viewer_parts(request),
    )
    if (answer := pagecache.not_modified(request, tag, weak=True)) is not None:
        return answer
    language = get_language()
    # Staff see draft rounds too: their block is their own, not the shared one.
    if access.is_staff:
        facts = _event_facts(event, access, decklists_public)
    else:
        facts = pagecache.get_or_build(
            pagecache.key("event", event.pk, revision, language, decklists_public),
            lambda: _event_facts(event, PUBLIC, decklists_public),
        )
    my_status = ""
    if access.registration_id is not None:
        my_status = pagecache.get_or_build(
            pagecache.key("event-mine", event.pk, revision, language, access.registration_id),
            lambda: _my_status(event, access),
        )
    response = render(
        request,
        "tournaments/event_detail.html",
        {
            "event": event,
            "access": access,
            # both rendered by our own templates, escaped there
            "facts": mark_safe(facts),
            "my_status": mark_safe(my_status),
            "champion": snapshots.champion(event),
            "can_register": closed is None
            and access.registration_id is None
            and not access.is_staff,
            "registration_closed": closed if access.registration_id is None else None,
        },
    )
    return pagecache.finish(response, tag, weak=True)


# --- standings -----------------------------------------------------------------------------


def _standing_rows(rows, headers) -> list[dict]:
    """Rows as the table shows them: every figure already a string (no per-cell
    localisation or translation in the template)."""
    shown = []
    for row in rows:
        byes = ""
        if row.byes:
            byes = ngettext("(%(count)s bye)", "(%(count)s byes)", row.byes) % {"count": row.byes}
        shown.append(
            {
                "id": row.registration_id,
                "placing": row.placing,
                "result": result_label(row.top_cut_result),
                "badge": result_badge(row.top_cut_result),
                "rank": row.rank,
                "name": row.name,
                "dropped": row.dropped,
                "points": row.match_points,
                "record": row.record,
                "byes": byes,
                # (column header, figure): the header labels the figure on a phone's card
                "tiebreakers": [
                    (header, percent(value))
                    for header, value in zip(headers, row.tiebreakers, strict=True)
                ],
            }
        )
    return shown


def _standings_block(
    event, snapshot, rows, *, pager, query: str = "", found=None, detail=None
) -> str:
    """Everything of the standings page that is the same for every viewer: the rounds
    counted, the search, the rows, the page links and the downloads."""
    headers = [TIEBREAK_LABELS.get(name, name) for name in snapshot.tiebreak_names]
    shown = _standing_rows(rows, headers)
    if detail is not None:
        for row in shown:
            if row["id"] == detail["registration_id"]:
                row["detail"] = detail
    top_cut = snapshot.top_cut
    return render_to_string(
        "tournaments/_standings_block.html",
        {
            "event": event,
            "top_cut": top_cut,
            "rounds": snapshot.rounds,
            "rows": shown,
            "headers": headers,
            "working_url": url_pattern("tournaments:standings_working", event.pk),
            "played": snapshot.rounds > 0,
            "pager": pager,
            "query": query,
            "found": found,
            "shown": snapshots.PAGE_SIZE,
        },
    )


def _standings_summary(event) -> dict:
    snapshot = snapshots.standings(event)
    top_cut = snapshot.top_cut
    return {
        "count": len(snapshot.rows),
        "rounds": snapshot.rounds,
        "final": top_cut is not None and top_cut.complete,
    }


def _my_standing(event, registration_id: int) -> dict:
    snapshot = snapshots.standings(event)
    position = snapshot.position_of(registration_id)
    if position is None:
        return {"found": False}
    row = snapshot.rows[position]
    return {
        "found": True,
        "id": registration_id,
        "placed": snapshot.top_cut is not None,
        "placing": row.placing,
        "result": result_label(row.top_cut_result),
        "rank": row.rank,
        "points": row.match_points,
        "record": row.record,
        "page": position // snapshots.PAGE_SIZE + 1,
    }


@require_safe
def standings(request, pk: int):
    """Standings, 200 rows a page, with a name search and the viewer's own row: the
    Swiss standings, by final placing once a top cut has been played (the champion
    first, with each player's top-cut result; "Final standings" once the final is
    closed or the event finished). Each row's tiebreak working opens on demand: htmx
    fetches it from
    :func:`standings_working` when the row's details open; without script the row's link
    (``?player=<id>``) renders the page holding that row with its working filled in."""
    event, access = selectors.viewed_event(request.user, pk)
    revision = snapshots.revision_of(event).standings
    query = _query(request)
    number = _page_number(request)
    shown = positive_int_param(request, "player")
    tag = pagecache.etag(
        request,
        "standings",
        event.pk,
        revision,
        number,
        query,
        shown,
        *pagecache.viewer_parts(request),
    )
    if (answer := pagecache.not_modified(request, tag, weak=True)) is not None:
        return answer
    language = get_language()
    summary = pagecache.get_or_build(
        pagecache.key("standings-summary-v2", event.pk, revision),
        lambda: _standings_summary(event),
    )
    mine = None
    if access.registration_id is not None:
        mine = pagecache.get_or_build(
            # the top-cut result is translated text: one entry per language
            pagecache.key(
                "standings-mine-v3", event.pk, revision, get_language(), access.registration_id
            ),
            lambda: _my_standing(event, access.registration_id),
        )
    if query:
        snapshot = snapshots.standings(event)
        rows = snapshot.search(query)
        block = _standings_block(
            event,
            snapshot,
            rows[: snapshots.PAGE_SIZE],
            pager=None,
            query=query,
            found=len(rows),
        )
    elif shown is not None:
        snapshot = snapshots.standings(event)
        position = snapshot.position_of(shown)
        if position is None:
            raise Http404
        pager = _pager(position // snapshots.PAGE_SIZE + 1, summary["count"])
        start = (pager["number"] - 1) * snapshots.PAGE_SIZE
        rows = snapshot.rows[start : start + snapshots.PAGE_SIZE]
        block = _standings_block(
            event, snapshot, rows, pager=pager, detail=_working_detail(event, shown)
        )
    else:
        pager = _pager(number, summary["count"])

        def build():
            snapshot = snapshots.standings(event)
            start = (pager["number"] - 1) * snapshots.PAGE_SIZE
            rows = snapshot.rows[start : start + snapshots.PAGE_SIZE]
            return _standings_block(event, snapshot, rows, pager=pager)

        block = pagecache.get_or_build(
            pagecache.key("standings-page-v2", event.pk, revision, language, pager["number"]),
            build,
        )
    response = render(
        request,
        "tournaments/standings.html",
        {
            "event": event,
            "body": mark_safe(block),  # rendered by our own template, escaped there
            "mine": mine if mine and mine["found"] else None,
            "final": summary["final"] or event.state == EventState.FINISHED,
            "champion": snapshots.champion(event),
        },
    )
    return pagecache.finish(response, tag, weak=True)


def _working_detail(event, registration_id: int) -> dict:
    """One player's tiebreak working (computed from the results: the engine's
    explanation is not part of the cached snapshot)."""
    table = snapshots.engine_standings(event)
    if not any(line.registration.pk == registration_id for line in table.rows):
        raise Http404
    names = {key: selectors.display_name(r) for key, r in table.registrations.items()}
    detail = _working(table, names, registration_id)
    detail["registration_id"] = registration_id
    return detail


@require_safe
def standings_working(request, pk: int, registration_id: int):
    """One player's tiebreak working (the fragment the standings page loads on demand),
    cached per standings revision and language."""
    event, _access = selectors.viewed_event(request.user, pk)
    revision = snapshots.revision_of(event).standings
    tag = pagecache.etag(request, "working", event.pk, revision, registration_id)
    if (answer := pagecache.not_modified(request, tag, weak=True)) is not None:
        return answer
    html = pagecache.get_or_build(
        pagecache.key("standings-working", event.pk, revision, get_language(), registration_id),
        lambda: render_to_string(
            "tournaments/_standings_working.html",
            {"detail": _working_detail(event, registration_id)},
        ),
    )
    return pagecache.finish(HttpResponse(html), tag, weak=True)


# --- pairings ------------------------------------------------------------------------------


def _records_texts(records: dict, ids) -> dict[int, str]:
    """The "6 pts · 2-0-0" of each registration of ``ids`` that has a record."""
    texts = {}
    for registration_id in ids:
        found = records.get(registration_id)
        if found is not None and registration_id not in texts:
            points, record = found
            texts[registration_id] = ngettext(
                "%(points)s pt · %(record)s", "%(points)s pts · %(record)s", points
            ) % {"points": points, "record": record}
    return texts


def _pairing_rows(rows, *, by_name: bool, records: dict, extensions: dict) -> list[dict]:
    """The rows as the table shows them: each player's points and record as they enter
    the round, and the table's extra time."""
    if by_name:
        ids = []
        for line in rows:
            ids += [line.row.player1_id, line.row.player2_id]
        texts = _records_texts(records, ids)
        shown = []
        for line in rows:
            me, them = line.row.player1_id, line.row.player2_id
            if line.seat == 2:
                me, them = them, me
            shown.append(
                {
                    "line": line,
                    "points": texts.get(me, ""),
                    "opponent_points": texts.get(them, ""),
                    "extra": extensions.get(line.row.match_id, 0),
                }
            )
        return shown
    texts = _records_texts(records, [pk for row in rows for pk in (row.player1_id, row.player2_id)])
    return [
        {
            "row": row,
            "points1": texts.get(row.player1_id, ""),
            "points2": texts.get(row.player2_id, ""),
            "extra": extensions.get(row.match_id, 0),
        }
        for row in rows
    ]


def _pairings_block(
    event, round_, rows, *, by_name: bool, staff: bool, pager, query: str = "", found=None
) -> str:
    """The pairings page's part that is the same for every viewer of its kind: the
    order link, the search, the rows (with points, records and extra time), the page links
    and the downloads (with the staff's result links when ``staff``: then it is never
    shared)."""
    infos = round_data.rounds(event)
    info = next(info for info in infos if info.number == round_.number)
    return render_to_string(
        "tournaments/_pairings_block.html",
        {
            "event": event,
            "round": round_,
            "rows": _pairing_rows(
                rows,
                by_name=by_name,
                records=round_data.records_before(event, info, infos),
                extensions=round_data.extensions(event, info),
            ),
            "by_name": by_name,
            "staff_links": staff and round_.status != RoundStatus.DRAFT,
            "result_url": url_pattern("tournaments:match_result", event.pk),
            "pager": pager,
            "query": query,
            "found": found,
            "shown": snapshots.PAGE_SIZE,
        },
    )


def _pairings_summary(snapshot: snapshots.PairingsSnapshot) -> dict:
    return {
        "tables": len(snapshot.rows),
        "lines": sum(2 if row.player2_id is not None else 1 for row in snapshot.rows),
    }


def _my_table(snapshot: snapshots.PairingsSnapshot, registration_id: int) -> dict:
    row = snapshot.row_of(registration_id)
    if row is None:
        return {"found": False}
    first = row.player1_id == registration_id
    position = snapshot.position_of_table(row.table)
    return {
        "found": True,
        "table": row.table,
        "opponent": row.player2 if first else row.player1,
        "bye": row.player2_id is None,
        "page": position // snapshots.PAGE_SIZE + 1,
    }


def _neighbours(visible, number: int) -> tuple[int | None, int | None]:
    """The previous and next round the viewer may see."""
    before = [info.number for info in visible if info.number < number]
    after = [info.number for info in visible if info.number > number]
    return (before[-1] if before else None), (after[0] if after else None)


@require_safe
def pairings(request, pk: int, number: int | None = None):
    """A published round's pairings by table, or (``?by=name``) alphabetically by player
    name, 200 lines a page, with a search by name or table number, the viewer's own
    table first, each player's points and record, the tables' extra time and links to
    the previous and next rounds. Without ``number`` (``/events/<pk>/pairings/``, where
    the QR codes lead): the latest round the viewer may see, or a page saying none is
    up yet. live.js refreshes the page's live part when the event changes, so a phone
    left open on it shows a new round when it is published."""
    event, access = selectors.viewed_event(request.user, pk)
    visible = round_data.visible(round_data.rounds(event, wanted=number), access)
    if number is None:
        info = visible[-1] if visible else None
    else:
        info = next((info for info in visible if info.number == number), None)
        if info is None:
            raise Http404
    revision = snapshots.revision_of(event).number
    by_name = request.GET.get("by") == "name"
    query = _query(request)
    page_number = _page_number(request)
    tag = pagecache.etag(
        request,
        "pairings",
        event.pk,
        revision,
        number,
        by_name,
        page_number,
        query,
        access.is_staff,
        *pagecache.viewer_parts(request),
    )
    if (answer := pagecache.not_modified(request, tag, weak=True)) is not None:
        return answer
    frame = {
        "event": event,
        "access": access,
        "by_name": by_name,
        "current": number is None,
        "revision": revision,
        "live_url": reverse("tournaments:live", args=[event.pk]),
    }
    if info is None:
        response = render(request, "tournaments/pairings.html", {**frame, "round": None})
        return pagecache.finish(response, tag, weak=True)
    round_ = round_data.as_round(event, info)
    number = info.number
    language = get_language()
    # Staff pages carry per-match links and drafts: built for them, never shared.
    shared = not access.is_staff and round_.status != RoundStatus.DRAFT

    def snapshot() -> snapshots.PairingsSnapshot:
        return snapshots.pairings(event, round_)

    def cached(name, build, *parts):
        return pagecache.get_or_build(
            pagecache.key(name, event.pk, revision, number, *parts), build
        )

    summary = cached("pairings-summary", lambda: _pairings_summary(snapshot()))
    mine = None
    if access.registration_id is not None:
        mine = cached(
            "pairings-mine",
            lambda: _my_table(snapshot(), access.registration_id),
            access.registration_id,
        )
    if query:
        rows = snapshot().search(query)
        found, rows = len(rows), rows[: snapshots.PAGE_SIZE]
        if by_name:
            keep = {row.match_id for row in rows}
            rows = [line for line in snapshot().by_name() if line.row.match_id in keep]
        block = _pairings_block(
            event,
            round_,
            rows,
            by_name=by_name,
            staff=access.is_staff,
            pager=None,
            query=query,
            found=found,
        )
    else:
        pager = _pager(page_number, summary["lines" if by_name else "tables"])
        start = (pager["number"] - 1) * snapshots.PAGE_SIZE

        def build():
            lines = snapshot().by_name() if by_name else snapshot().rows
            return _pairings_block(
                event,
                round_,
                lines[start : start + snapshots.PAGE_SIZE],
                by_name=by_name,
                staff=access.is_staff,
                pager=pager,
            )

        if shared:
            block = cached("pairings-page", build, language, by_name, pager["number"])
        else:
            block = build()
    previous, following = _neighbours(visible, number)
    response = render(
        request,
        "tournaments/pairings.html",
        {
            **frame,
            "round": round_,
            "previous": previous,
            "next": following,
            "body": mark_safe(block),  # rendered by our own template, escaped there
            "mine": mine if mine and mine["found"] else None,
        },
    )
    return pagecache.finish(response, tag, weak=True)
