# The table keeps one line per entry, however long.
# ruff: noqa: E501
"""The URL × role permission matrix: who may use every route of the site.

``SPECS`` has one line per (route, methods, variant): which roles pass the permission
check and how the others are refused. ``test_permission_matrix.py`` walks the URL
resolver, fails for any (route, method) without a line here, and runs every line for
every role against the world that :func:`build_world` makes.

Adding a route = adding a line::

    Spec("tournaments:pairings", "GET POST", {"pk": "@A", "number": "@A.round"}, EVERYONE),

* ``route``: the URL name (``namespace:name``; the router's names for the API, e.g.
  ``event-round-publish``); a route without a name is keyed by its pattern text. A key
  with ``*`` is a glob, used for routes that have no line of their own (the admin).
* ``methods``: ``"GET"``, ``"GET POST"``…, or ``"*"`` for every method the route accepts.
  A function view without ``require_POST``/``require_http_methods`` accepts GET and POST.
* ``kwargs``: the URL kwargs; ``"@name"`` is a value of the world (:data:`WORLD_NAMES`),
  anything else is literal. ``AUTO`` fills them by name from :data:`AUTO_KWARGS` (for
  the admin's many routes).
* ``allowed``: the roles that pass (GET answers 200; other methods anything but a
  refusal — the state may still say 400/409, a page may redirect).
* ``not_found``: the refused roles that may not see the object and get 404 (``PRIVATE``:
  everyone but the event's staff; ``EVERYONE``: all); the other refused roles get 403.
  Anonymous callers are sent to log in first where ``login`` holds (default: pages and
  the admin always, the API for unsafe methods): a redirect to the login page (the admin's
  for admin pages), or 403 ``not_authenticated`` from the API. Signed-in users refused on
  an admin page are sent to the admin's login page too.
  A staff-only page asks for the permission on the (visible) event before it looks the
  round or match up, so a non-staff caller gets 403 there whether the object is a draft,
  another event's or missing: nothing about it is revealed. The API fetches the object
  first (404 when hidden), then the service refuses (403).
* ``data``: the form or JSON body of unsafe methods, the query string of GET; ``"@name"``
  values come from the world. Refused callers get a valid body, so the refusal can only
  come from the permission check. ``query``: a query string for every method.
* ``variant``: a short label when a route has several lines (published vs. draft round).
* ``roles``: the roles tried (default: all of :data:`EVENT_ROLES`).
* ``ok``: the statuses an allowed role must get, when the default is not right.
* ``xfail``: {role: reason} for a refusal known to be wrong (a reported bug).

The world (:func:`build_world`): event A is running, round 1 closed and round 2 published
(``A.match``: PLAYER against OPPONENT, not reported yet), a warning issued to PLAYER,
decklists locked and not public. A2 has the same staff and players, round 1 closed and
round 2 generated but not published (a draft round). B is running with its own staff and
players (ORGANIZER_B … PLAYER_B), round 2 published. D is a draft event whose staff are
A's staff. SITE_ADMIN is a superuser with no event role; OUTSIDER has no role at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.test import override_settings

from cardpool.models import CardType, Element
from decks import services as deck_services
from decks.builtin import load_builtin_formats
from rules import services as rules_services
from rules.models import Ruling
from tests.decks.conftest import LEGAL_DECK
from tests.factories import CardFactory, CardSetFactory, GameFactory, PrintingFactory
from tournaments import exports, services, tokens
from tournaments.demo import games_for, play_round
from tournaments.models import EventStaff, Match, Registration, StaffRole, Webhook
from tournaments.services import deck_checks

from .factories import new_event, open_event, register_all

# --- roles -----------------------------------------------------------------------------

ANONYMOUS = "anonymous"
OUTSIDER = "outsider"  # signed in, no role anywhere
SITE_ADMIN = "site_admin"  # superuser (and Django staff), no role in any event
ORGANIZER = "organizer"  # of A, A2 and D
CO_ORGANIZER = "co_organizer"
JUDGE = "judge"
PLAYER = "player"  # of A and A2: player 1 of A.match, owner of A.registration and the deck
OPPONENT = "opponent"  # player 2 of A.match
OTHER_PLAYER = "other_player"  # plays in A, in another match
ORGANIZER_B = "organizer_b"  # the same roles in event B
CO_ORGANIZER_B = "co_organizer_b"
JUDGE_B = "judge_b"
PLAYER_B = "player_b"

EVENT_ROLES = (
    ANONYMOUS,
    OUTSIDER,
    SITE_ADMIN,
    ORGANIZER,
    CO_ORGANIZER,
    JUDGE,
    PLAYER,
    OPPONENT,
    OTHER_PLAYER,
    ORGANIZER_B,
    CO_ORGANIZER_B,
    JUDGE_B,
    PLAYER_B,
)
# Routes outside the events: nobody there has an event role, only owner or not.
SITE_ROLES = (ANONYMOUS, OUTSIDER, PLAYER, SITE_ADMIN)
# Pages for the staff of any event, not of one: event B's roles are allowed like event A's.
SITE_WIDE_STAFF = frozenset({"venue_poster"})
ADMIN_ROLES = (ANONYMOUS, OUTSIDER, SITE_ADMIN)  # ADMIN_ROLES[:2]: the refused ones

EVERYONE = frozenset(EVENT_ROLES)
NOBODY = frozenset()
SIGNED_IN = EVERYONE - {ANONYMOUS}
OWNERS = frozenset({SITE_ADMIN, ORGANIZER})
MANAGERS = OWNERS | {CO_ORGANIZER}
STAFF = MANAGERS | {JUDGE}
PLAYERS = frozenset({PLAYER, OPPONENT, OTHER_PLAYER})
PARTICIPANTS = frozenset({PLAYER, OPPONENT})
# Refusals: who gets 404 (the others get 403).
FORBID = NOBODY
PRIVATE = EVERYONE - STAFF

AUTO = "auto"
AUTO_KWARGS = {
    "pk": "@job",
    "id": "@site_admin",
    "object_id": "@site_admin",
    "content_type_id": 1,
    "app_label": "tournaments",
    "url": "no-such-page/",
}

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Spec:
    route: str
    methods: str
    kwargs: dict | str = field(default_factory=dict)
    allowed: frozenset = NOBODY
    not_found: frozenset = FORBID
    variant: str = ""
    data: dict | None = None
    query: dict | None = None
    login: bool | None = None
    roles: tuple = EVENT_ROLES
    ok: frozenset | None = None
    xfail: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "allowed", frozenset(self.allowed))
        object.__setattr__(self, "not_found", frozenset(self.not_found))


# --- request bodies --------------------------------------------------------------------

REPORT_FORM = {
    "expected_version": "@A.match.version",
    "game1_end": "hp_zero",
    "game1_hp1": 12,
    "game1_hp2": 0,
    "game2_end": "hp_zero",
    "game2_hp1": 12,
    "game2_hp2": 0,
}
VERSION_FORM = {"expected_version": "@A.match.version"}
DISPUTE_FORM = {"expected_version": "@A.match.version", "reason": "We played 2-1."}
PENALTY_FORM = {"penalty-kind": "warning", "penalty-infraction": "Slow play"}


def api_report(match: str) -> dict:
    return {"games": games_for("2-0"), "expected_version": f"@{match}.version"}


def api_override(match: str) -> dict:
    return {"expected_version": f"@{match}.version", "reason": "Judge call", "record": "2-0"}


A = {"pk": "@A"}
A_ROUND = {"pk": "@A", "number": "@A.round"}
A2_DRAFT_ROUND = {"pk": "@A2", "number": "@A2.round"}
A_MATCH = {"pk": "@A", "match_id": "@A.match"}
A2_DRAFT_MATCH = {"pk": "@A2", "match_id": "@A2.match"}
B_MATCH_IN_A = {"pk": "@A", "match_id": "@B.match"}
A_REGISTRATION = {"pk": "@A", "registration_id": "@A.registration"}
B_REGISTRATION_IN_A = {"pk": "@A", "registration_id": "@B.registration"}
D = {"pk": "@D"}
A_DECK_CHECK = {"pk": "@A", "check_id": "@A.deck_check"}

API_A = {"event_pk": "@A"}
API_A_REGISTRATION = {"event_pk": "@A", "pk": "@A.registration"}
API_B_REGISTRATION_IN_A = {"event_pk": "@A", "pk": "@B.registration"}
API_A_ROUND = {"event_pk": "@A", "number": "@A.round"}
API_A2_DRAFT_ROUND = {"event_pk": "@A2", "number": "@A2.round"}
API_A_MATCH = {"event_pk": "@A", "pk": "@A.match"}
API_A2_DRAFT_MATCH = {"event_pk": "@A2", "pk": "@A2.match"}
API_B_MATCH_IN_A = {"event_pk": "@A", "pk": "@B.match"}

GP = "GET POST"  # a form view: GET shows it, POST sends it (read-only views are "GET")
PLAYER_BODY = {"reason": "Moving on."}
DECK_FORM = {"decklist": LEGAL_DECK}
DECK_CHECK_FORM = {"method": "paste", "paste-counted_text": LEGAL_DECK}
A_WEBHOOK = {"pk": "@A", "hook_id": "@A.webhook"}
B_WEBHOOK_IN_A = {"pk": "@A", "hook_id": "@B.webhook"}
WEBHOOK_FORM = {
    "url": "https://hooks.example.org/in",
    "secret": "a-secret-of-16-chars-or-more",
    "kinds": ["round.published"],
}

# fmt: off
SPECS = [
    # --- public event pages ------------------------------------------------------------
    Spec("tournaments:event_list", "GET", {}, EVERYONE),
    Spec("tournaments:event_detail", "GET", A, EVERYONE),
    Spec("tournaments:event_detail", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:pairings", "GET", A_ROUND, EVERYONE),
    Spec("tournaments:pairings", "GET", A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round", login=False),
    # Why this opponent (#14): staff always, the event's players once the round is published.
    Spec("tournaments:why_pairings", "GET", A_ROUND, STAFF | PLAYERS),
    Spec("tournaments:why_pairings", "GET", A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round", login=False),
    Spec("tournaments:standings", "GET", A, EVERYONE),
    Spec("tournaments:standings", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:standings_working", "GET", A_REGISTRATION, EVERYONE),
    Spec("tournaments:standings_working", "GET", {"pk": "@D", "registration_id": "@A.registration"}, NOBODY, EVERYONE, "draft-event", login=False),
    Spec("tournaments:bracket", "GET", A, EVERYONE),
    Spec("tournaments:bracket", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:decklists", "GET", A, EVERYONE),
    Spec("tournaments:decklists", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:metagame", "GET", A, STAFF, login=False),
    Spec("tournaments:metagame", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:metagame_csv", "GET", A, STAFF, login=False),
    Spec("decks:format_list", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:format_metagame", "GET", {"slug": "crossover"}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:format_metagame_csv", "GET", {"slug": "crossover"}, EVERYONE, roles=SITE_ROLES),
    Spec("tournaments:penalty_report", "GET", A, STAFF),
    Spec("tournaments:penalty_report", "GET", D, STAFF, PRIVATE, "draft-event"),
    # --- the player's pages --------------------------------------------------------------
    Spec("tournaments:register", "GET", A, SIGNED_IN),
    # The event's staff may not play in it (a superuser may).
    Spec("tournaments:register", "POST", A, SIGNED_IN - (STAFF - {SITE_ADMIN}), data=DECK_FORM),
    Spec("tournaments:register", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:register", "POST", D, {SITE_ADMIN}, PRIVATE, "draft-event", data=DECK_FORM),
    Spec("tournaments:my_registration", "GET", A, SIGNED_IN),
    Spec("tournaments:my_registration", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:my_match", "GET", A, SIGNED_IN),
    Spec("tournaments:my_match", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:match", "GET", A_MATCH, EVERYONE),
    Spec("tournaments:match", "GET", A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round", login=False),
    Spec("tournaments:match", "GET", B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", login=False),
    Spec("tournaments:report_result", "POST", A_MATCH, PARTICIPANTS, data=REPORT_FORM),
    Spec("tournaments:report_result", "POST", A2_DRAFT_MATCH, NOBODY, PRIVATE, "draft-round", data=REPORT_FORM),
    Spec("tournaments:report_result", "POST", B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data=REPORT_FORM),
    # The live preview of the report form: the match's players and the staff.
    Spec("tournaments:result_preview", "POST", A_MATCH, PARTICIPANTS | STAFF, data=REPORT_FORM),
    Spec("tournaments:result_preview", "POST", A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round", data=REPORT_FORM),
    Spec("tournaments:result_preview", "POST", B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data=REPORT_FORM),
    Spec("tournaments:confirm_result", "POST", A_MATCH, PARTICIPANTS, data=VERSION_FORM),
    Spec("tournaments:confirm_result", "POST", A2_DRAFT_MATCH, NOBODY, PRIVATE, "draft-round", data=VERSION_FORM),
    Spec("tournaments:confirm_result", "POST", B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data=VERSION_FORM),
    Spec("tournaments:dispute_result", "POST", A_MATCH, PARTICIPANTS, data=DISPUTE_FORM),
    Spec("tournaments:dispute_result", "POST", A2_DRAFT_MATCH, NOBODY, PRIVATE, "draft-round", data=DISPUTE_FORM),
    Spec("tournaments:dispute_result", "POST", B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data=DISPUTE_FORM),
    # A user without a registration in the event has nothing there: 404.
    Spec("tournaments:my_decklist", GP, A, PLAYERS, EVERYONE, data=DECK_FORM),
    Spec("tournaments:my_decklist", GP, D, NOBODY, EVERYONE, "draft-event", data=DECK_FORM),
    Spec("tournaments:my_drop", GP, A, PLAYERS, EVERYONE, data=PLAYER_BODY),
    Spec("tournaments:my_drop", GP, D, NOBODY, EVERYONE, "draft-event", data=PLAYER_BODY),
    Spec("tournaments:my_reenter", "POST", A, PLAYERS, EVERYONE),
    Spec("tournaments:my_reenter", "POST", D, NOBODY, EVERYONE, "draft-event"),
    # --- event settings, life cycle, staff team, audit -----------------------------------
    Spec("tournaments:event_create", GP, {}, SIGNED_IN),
    Spec("tournaments:event_edit", GP, A, MANAGERS),
    Spec("tournaments:event_edit", GP, D, MANAGERS, PRIVATE, "draft-event"),
    Spec("tournaments:event_transition", "POST", {"pk": "@A", "action": "finish"}, MANAGERS),
    Spec("tournaments:event_transition", "POST", {"pk": "@D", "action": "open-registration"}, MANAGERS, PRIVATE, "draft-event"),
    Spec("tournaments:staff_team", "GET", A, STAFF),
    Spec("tournaments:staff_team", "POST", A, OWNERS, data={"username": "outsider", "role": "judge"}),
    Spec("tournaments:staff_team", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:staff_remove", "POST", {"pk": "@A", "staff_id": "@A.judge_staff"}, OWNERS),
    Spec("tournaments:staff_remove", "POST", {"pk": "@A", "staff_id": "@B.judge_staff"}, NOBODY, OWNERS, "other-event"),
    Spec("tournaments:audit_log", "GET", A, STAFF),
    Spec("tournaments:audit_log", "GET", D, STAFF, PRIVATE, "draft-event"),
    # --- staff: dashboard, players, late entry ---------------------------------------------
    Spec("tournaments:dashboard", "GET", A, STAFF),
    Spec("tournaments:dashboard", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:player_detail", "GET", A_REGISTRATION, STAFF),
    Spec("tournaments:player_detail", "GET", B_REGISTRATION_IN_A, NOBODY, STAFF, "other-event"),
    Spec("tournaments:player_drop", "POST", A_REGISTRATION, STAFF, data={"drop-reason": "Ill"}),
    Spec("tournaments:player_drop", "POST", B_REGISTRATION_IN_A, NOBODY, STAFF, "other-event"),
    Spec("tournaments:player_reenter", "POST", A_REGISTRATION, STAFF),
    Spec("tournaments:player_reenter", "POST", B_REGISTRATION_IN_A, NOBODY, STAFF, "other-event"),
    Spec("tournaments:player_decklist", "POST", A_REGISTRATION, STAFF, data={"deck-decklist": LEGAL_DECK, "deck-reason": "Typo"}),
    Spec("tournaments:player_decklist", "POST", B_REGISTRATION_IN_A, NOBODY, STAFF, "other-event", data={"deck-decklist": LEGAL_DECK, "deck-reason": "Typo"}),
    Spec("tournaments:player_penalty", "POST", A_REGISTRATION, STAFF, data=PENALTY_FORM),
    Spec("tournaments:player_penalty", "POST", B_REGISTRATION_IN_A, NOBODY, STAFF, "other-event", data=PENALTY_FORM),
    # Claim links for placeholder accounts (#14): the event's organizer or a site admin
    # (PLAYER's account is in use, so the owners are sent back to the page).
    Spec("tournaments:player_claim_link", "POST", A_REGISTRATION, OWNERS),
    Spec("tournaments:player_claim_link", "POST", B_REGISTRATION_IN_A, NOBODY, OWNERS, "other-event"),
    Spec("tournaments:late_entry", GP, A, STAFF, data={"username": "outsider", "decklist": LEGAL_DECK}),
    Spec("tournaments:late_entry", GP, D, STAFF, PRIVATE, "draft-event", data={"username": "outsider"}),
    # --- staff: deck checks (rule 1−2−4) ---------------------------------------------------
    # Outgoing webhooks (#14): the event's managers (the secret is shown once, then masked;
    # rotating it is theirs too, #21).
    Spec("tournaments:webhook_list", "GET", A, MANAGERS),
    Spec("tournaments:webhook_list", "GET", D, MANAGERS, PRIVATE, "draft-event"),
    Spec("tournaments:webhook_new", GP, A, MANAGERS, data=WEBHOOK_FORM),
    Spec("tournaments:webhook_edit", GP, A_WEBHOOK, MANAGERS, data=WEBHOOK_FORM),
    Spec("tournaments:webhook_edit", GP, B_WEBHOOK_IN_A, NOBODY, MANAGERS, "other-event", data=WEBHOOK_FORM),
    Spec("tournaments:webhook_delete", GP, A_WEBHOOK, MANAGERS),
    Spec("tournaments:webhook_delete", GP, B_WEBHOOK_IN_A, NOBODY, MANAGERS, "other-event"),
    Spec("tournaments:webhook_rotate_secret", GP, A_WEBHOOK, MANAGERS),
    Spec("tournaments:webhook_rotate_secret", GP, B_WEBHOOK_IN_A, NOBODY, MANAGERS, "other-event"),
    Spec("tournaments:webhook_deliveries", "GET", A, MANAGERS),
    Spec("tournaments:deck_check_list", "GET", A, STAFF),
    Spec("tournaments:deck_check_list", "GET", D, STAFF, PRIVATE, "draft-event"),
    # API tokens of an event (#14): its staff make and list them; the maker (JUDGE made
    # A.token) or a manager revokes one.
    Spec("tournaments:event_tokens", GP, A, STAFF, data={"name": "Overlay", "scope": "read"}),
    Spec("tournaments:event_tokens", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:event_token_revoke", "POST", {"pk": "@A", "token_id": "@A.token"}, STAFF),
    Spec("tournaments:deck_check_pick", "GET", A, STAFF),
    Spec("tournaments:deck_check_new", GP, A_REGISTRATION, STAFF, data=DECK_CHECK_FORM),
    Spec("tournaments:deck_check_new", GP, B_REGISTRATION_IN_A, NOBODY, STAFF, "other-event", data=DECK_CHECK_FORM),
    Spec("tournaments:deck_check_detail", "GET", A_DECK_CHECK, STAFF),
    Spec("tournaments:deck_check_penalty", GP, A_DECK_CHECK, STAFF, data=PENALTY_FORM),
    # --- staff: rounds and results ---------------------------------------------------------
    Spec("tournaments:generate_round", "POST", A, MANAGERS),
    Spec("tournaments:generate_round", "POST", D, MANAGERS, PRIVATE, "draft-event"),
    Spec("tournaments:round_action", "POST", {**A_ROUND, "action": "start"}, MANAGERS),
    Spec("tournaments:round_action", "POST", {**A_ROUND, "action": "close"}, MANAGERS, variant="close"),
    # A draft round is private: it is looked up before the permission is checked, so a
    # non-staff caller gets 404 (as from the API), a judge on a manager-only action 403.
    Spec("tournaments:round_action", "POST", {**A2_DRAFT_ROUND, "action": "publish"}, MANAGERS, PRIVATE, "draft-round"),
    Spec("tournaments:repair_round", "POST", A2_DRAFT_ROUND, MANAGERS, PRIVATE, data={"reason": "Seating"}),
    Spec("tournaments:edit_pairings", GP, A2_DRAFT_ROUND, MANAGERS, PRIVATE, data={"reason": "Seating"}),
    Spec("tournaments:match_slips", "GET", A_ROUND, STAFF),
    Spec("tournaments:match_slips", "GET", A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round"),
    Spec("tournaments:generate_top_cut", "POST", A, MANAGERS),
    Spec("tournaments:advance_bracket", "POST", A, MANAGERS),
    Spec("tournaments:match_result", GP, A_MATCH, STAFF, data={"reason": "Judge call", "record": "2-0", "expected_version": "@A.match.version"}),
    Spec("tournaments:match_result", GP, A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round"),
    Spec("tournaments:match_result", GP, B_MATCH_IN_A, NOBODY, EVERYONE, "other-event"),
    Spec("tournaments:extend_match_time", "POST", A_MATCH, STAFF, data={"minutes": "3", "reason": "Deck check"}),
    Spec("tournaments:extend_match_time", "POST", A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round", data={"minutes": "3", "reason": "Deck check"}),
    # --- live rounds: the clock, the projector, the live JSON, current pairings, poster ----
    Spec("tournaments:round_clock", "GET", A_ROUND, EVERYONE),
    Spec("tournaments:round_clock", "GET", A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round", login=False),
    Spec("tournaments:round_clock_fragment", "GET", A_ROUND, EVERYONE),
    Spec("tournaments:round_clock_fragment", "GET", A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round", login=False),
    Spec("tournaments:event_clock", "GET", A, EVERYONE),
    Spec("tournaments:event_clock", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:projector", "GET", {}, EVERYONE, query={"events": "@A"}),
    Spec("tournaments:live", "GET", A, EVERYONE),
    Spec("tournaments:live", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:current_pairings", "GET", A, EVERYONE),
    Spec("tournaments:current_pairings", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:poster", "GET", A, EVERYONE),
    Spec("tournaments:poster", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    # --- exports: what the caller may see; a background job is its requester's ------------
    Spec("tournaments:export", "GET", {"pk": "@A", "kind": "standings", "fmt": "csv"}, EVERYONE),
    Spec("tournaments:export", "GET", {"pk": "@A", "kind": "pairings", "fmt": "json"}, EVERYONE, variant="pairings", query={"round": "@A.round"}),
    Spec("tournaments:export", "GET", {"pk": "@A2", "kind": "pairings", "fmt": "json"}, STAFF, PRIVATE, "draft-round", query={"round": "@A2.round"}, login=False),
    Spec("tournaments:export", "GET", {"pk": "@D", "kind": "decklists", "fmt": "xlsx"}, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:export_job", "GET", {"pk": "@A", "job_id": "@job"}, {PLAYER, SITE_ADMIN}, EVERYONE),
    Spec("tournaments:export_job_download", "GET", {"pk": "@A", "job_id": "@job"}, {PLAYER, SITE_ADMIN}, EVERYONE),
    # --- the event file: the staff's whole file (e-mails: owners), the public file once
    # the rounds are under way (A is running), the import for anyone signed in -----------
    Spec("tournaments:event_file_download", "GET", A, EVERYONE, login=False),
    Spec("tournaments:event_file_download", "GET", A, OWNERS, variant="private", data={"private": "1"}, login=False),
    Spec("tournaments:event_file_download", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:event_file_staff", "GET", A, STAFF),
    Spec("tournaments:event_file_staff", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("tournaments:event_file_import", GP, {}, SIGNED_IN, data={}),
    Spec("tournaments:event_verify", "GET", A, EVERYONE, login=False),
    Spec("tournaments:event_verify", "GET", D, STAFF, PRIVATE, "draft-event", login=False),
    Spec("tournaments:event_file_schema", "GET", {}, EVERYONE),
    # --- the events API ------------------------------------------------------------------
    Spec("event-list", "GET", {}, EVERYONE),
    Spec("event-list", "POST", {}, SIGNED_IN, data={"name": "New event", "format": "crossover", "date": "2026-06-01", "capacity": 8}),
    Spec("event-detail", "GET", A, EVERYONE),
    Spec("event-detail", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("event-detail", "PATCH", A, MANAGERS, data={"name": "Event A renamed"}),
    Spec("event-detail", "PATCH", D, MANAGERS, PRIVATE, "draft-event", data={"name": "Draft renamed"}),
    Spec("event-open-registration", "POST", D, MANAGERS, PRIVATE, "draft-event"),
    Spec("event-start", "POST", A, MANAGERS),
    Spec("event-start", "POST", D, MANAGERS, PRIVATE, "draft-event"),
    Spec("event-finish", "POST", A, MANAGERS),
    Spec("event-top-cut", "POST", A, MANAGERS),
    Spec("event-advance-bracket", "POST", A, MANAGERS),
    Spec("event-late-entry", "POST", A, STAFF, data={"username": "outsider", "deck_text": LEGAL_DECK}),
    Spec("event-late-entry", "POST", D, STAFF, PRIVATE, "draft-event", data={"username": "outsider", "deck_text": LEGAL_DECK}),
    Spec("event-standings", "GET", A, EVERYONE),
    Spec("event-standings", "GET", D, STAFF, PRIVATE, "draft-event"),
    Spec("event-register", "POST", A, SIGNED_IN - (STAFF - {SITE_ADMIN})),
    Spec("event-register", "POST", D, {SITE_ADMIN}, PRIVATE, "draft-event"),
    Spec("event-generate-round", "POST", A, MANAGERS),
    Spec("event-generate-round", "POST", D, MANAGERS, PRIVATE, "draft-event"),
    Spec("event-registration-list", "GET", API_A, EVERYONE),
    Spec("event-registration-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event"),
    Spec("event-registration-detail", "GET", API_A_REGISTRATION, EVERYONE),
    Spec("event-registration-detail", "GET", API_B_REGISTRATION_IN_A, NOBODY, EVERYONE, "other-event"),
    Spec("event-registration-decklist", "POST", API_A_REGISTRATION, STAFF | {PLAYER}, data={"deck_text": LEGAL_DECK, "reason": "Typo"}),
    Spec("event-registration-decklist", "POST", API_B_REGISTRATION_IN_A, NOBODY, EVERYONE, "other-event", data={"deck_text": LEGAL_DECK, "reason": "Typo"}),
    Spec("event-registration-drop", "POST", API_A_REGISTRATION, STAFF | {PLAYER}, data=PLAYER_BODY),
    Spec("event-registration-drop", "POST", API_B_REGISTRATION_IN_A, NOBODY, EVERYONE, "other-event", data=PLAYER_BODY),
    Spec("event-registration-reenter", "POST", API_A_REGISTRATION, STAFF | {PLAYER}, data=PLAYER_BODY),
    Spec("event-registration-reenter", "POST", API_B_REGISTRATION_IN_A, NOBODY, EVERYONE, "other-event", data=PLAYER_BODY),
    Spec("event-registration-penalty", "POST", API_A_REGISTRATION, STAFF, data={"kind": "warning", "infraction": "Slow play"}),
    Spec("event-registration-penalty", "POST", API_B_REGISTRATION_IN_A, NOBODY, EVERYONE, "other-event", data={"kind": "warning", "infraction": "Slow play"}),
    Spec("event-round-list", "GET", API_A, EVERYONE),
    Spec("event-round-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event"),
    Spec("event-round-detail", "GET", API_A_ROUND, EVERYONE),
    Spec("event-round-why-list", "GET", API_A_ROUND, STAFF | PLAYERS, login=True),
    Spec("event-round-why-list", "GET", API_A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round"),
    Spec("event-round-detail", "GET", API_A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round"),
    Spec("event-round-pairings", "GET", API_A_ROUND, EVERYONE),
    Spec("event-round-pairings", "GET", API_A2_DRAFT_ROUND, STAFF, PRIVATE, "draft-round"),
    Spec("event-round-publish", "POST", API_A_ROUND, MANAGERS),
    Spec("event-round-publish", "POST", API_A2_DRAFT_ROUND, MANAGERS, PRIVATE, "draft-round"),
    Spec("event-round-start-clock", "POST", API_A_ROUND, MANAGERS),
    Spec("event-round-start-clock", "POST", API_A2_DRAFT_ROUND, MANAGERS, PRIVATE, "draft-round"),
    Spec("event-round-close", "POST", API_A_ROUND, MANAGERS),
    Spec("event-round-close", "POST", API_A2_DRAFT_ROUND, MANAGERS, PRIVATE, "draft-round"),
    Spec("event-round-repair", "POST", API_A2_DRAFT_ROUND, MANAGERS, PRIVATE, "draft-round", data={"reason": "Seating"}),
    Spec("event-round-edit-pairing", "POST", API_A2_DRAFT_ROUND, MANAGERS, PRIVATE, "draft-round", data={"tables": {"99": None}, "reason": "Seating"}),
    Spec("event-match-detail", "GET", API_A_MATCH, EVERYONE),
    Spec("event-match-detail", "GET", API_A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round"),
    Spec("event-match-detail", "GET", API_B_MATCH_IN_A, NOBODY, EVERYONE, "other-event"),
    Spec("event-match-report", "POST", API_A_MATCH, PARTICIPANTS, data=api_report("A.match")),
    Spec("event-match-report", "POST", API_A2_DRAFT_MATCH, NOBODY, PRIVATE, "draft-round", data=api_report("A2.match")),
    Spec("event-match-report", "POST", API_B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data=api_report("B.match")),
    Spec("event-match-confirm", "POST", API_A_MATCH, PARTICIPANTS, data={"expected_version": "@A.match.version"}),
    Spec("event-match-confirm", "POST", API_A2_DRAFT_MATCH, NOBODY, PRIVATE, "draft-round", data={"expected_version": "@A2.match.version"}),
    Spec("event-match-confirm", "POST", API_B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data={"expected_version": "@B.match.version"}),
    Spec("event-match-dispute", "POST", API_A_MATCH, PARTICIPANTS, data={"expected_version": "@A.match.version", "reason": "No"}),
    Spec("event-match-dispute", "POST", API_A2_DRAFT_MATCH, NOBODY, PRIVATE, "draft-round", data={"expected_version": "@A2.match.version", "reason": "No"}),
    Spec("event-match-dispute", "POST", API_B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data={"expected_version": "@B.match.version", "reason": "No"}),
    Spec("event-match-extend-time", "POST", API_A_MATCH, STAFF, data={"minutes": 3, "reason": "Deck check"}),
    Spec("event-match-extend-time", "POST", API_A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round", data={"minutes": 3, "reason": "Deck check"}),
    Spec("event-match-override", "POST", API_A_MATCH, STAFF, data=api_override("A.match")),
    Spec("event-match-override", "POST", API_A2_DRAFT_MATCH, STAFF, PRIVATE, "draft-round", data=api_override("A2.match")),
    Spec("event-match-override", "POST", API_B_MATCH_IN_A, NOBODY, EVERYONE, "other-event", data=api_override("B.match")),
    Spec("event-staff-list", "GET", API_A, STAFF, login=True),
    Spec("event-staff-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event", login=True),
    Spec("event-staff-list", "POST", API_A, OWNERS, data={"username": "outsider", "role": "judge"}),
    Spec("event-staff-detail", "DELETE", {"event_pk": "@A", "pk": "@A.judge_staff"}, OWNERS),
    Spec("event-staff-detail", "DELETE", {"event_pk": "@A", "pk": "@B.judge_staff"}, NOBODY, OWNERS, "other-event"),
    # Lists are filtered (empty for whoever may see nothing); one hidden object is a 404.
    Spec("event-penalty-list", "GET", API_A, EVERYONE),
    Spec("event-penalty-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event"),
    Spec("event-penalty-detail", "GET", {"event_pk": "@A", "pk": "@A.penalty"}, STAFF | {PLAYER}, EVERYONE),
    Spec("event-decklist-list", "GET", API_A, EVERYONE),
    Spec("event-decklist-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event"),
    Spec("event-decklist-detail", "GET", API_A_REGISTRATION, STAFF | {PLAYER}, EVERYONE),
    Spec("event-audit-list", "GET", API_A, STAFF, login=True),
    Spec("event-audit-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event", login=True),
    Spec("event-deck-check-list", "GET", API_A, STAFF, login=True),
    Spec("event-deck-check-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event", login=True),
    Spec("event-deck-check-list", "POST", API_A, STAFF, data={"registration": "@A.registration", "counted_text": LEGAL_DECK}),
    Spec("event-deck-check-detail", "GET", {"event_pk": "@A", "pk": "@A.deck_check"}, STAFF, login=True),
    Spec("event-deck-check-penalty", "POST", {"event_pk": "@A", "pk": "@A.deck_check"}, STAFF, data={"kind": "warning"}),
    Spec("event-export-list", "GET", API_A, EVERYONE, data={"kind": "standings", "format": "csv"}),
    Spec("event-export-list", "GET", {"event_pk": "@A2"}, STAFF, PRIVATE, "draft-round", data={"kind": "pairings", "format": "json", "round": "@A2.round"}),
    Spec("event-export-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event", data={"kind": "decklists", "format": "csv"}),
    Spec("event-file-list", "GET", API_A, EVERYONE),
    Spec("event-file-list", "GET", API_A, OWNERS, variant="private", data={"private": "1"}),
    Spec("event-file-list", "GET", {"event_pk": "@D"}, STAFF, PRIVATE, "draft-event"),
    Spec("event-file-import-list", "POST", {}, SIGNED_IN, data={"schema": "crossover-event/1"}),
    Spec("export-job-detail", "GET", {"pk": "@job"}, {PLAYER, SITE_ADMIN}, EVERYONE, login=True),
    Spec("export-job-download", "GET", {"pk": "@job"}, {PLAYER, SITE_ADMIN}, EVERYONE, login=True),
    # --- the rest of the site: cards, decks, rules, accounts -------------------------------
    Spec("home", "GET", {}, EVERYONE, roles=SITE_ROLES),
    # The venue poster (the laptop's address): whoever runs an event here, of any event
    # (SITE_WIDE_STAFF: event B's staff may open it as event A's do).
    Spec("venue_poster", "GET", {}, STAFF | {ORGANIZER_B, CO_ORGANIZER_B, JUDGE_B}),
    Spec("cardpool:card_list", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("cardpool:card_detail", "GET", {"pk": "@card"}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:check", GP, {}, EVERYONE, roles=SITE_ROLES, data={"format": "crossover", "decklist": LEGAL_DECK}),
    Spec("decks:deck_list", "GET", {}, SIGNED_IN, roles=SITE_ROLES),
    Spec("decks:deck_create", GP, {}, SIGNED_IN, roles=SITE_ROLES),
    # A deck is its owner's (PLAYER's): for anyone else it does not exist.
    Spec("decks:deck_detail", "GET", {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:deck_edit", GP, {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:deck_duplicate", "POST", {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:deck_delete", GP, {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    Spec("decks:deck_export", "GET", {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:index", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:search", "GET", {}, EVERYONE, roles=SITE_ROLES, data={"q": "デッキ"}),
    Spec("rules:calculator", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:card", "GET", {"pk": "@card"}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:ruling", "GET", {"pk": "@ruling"}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:document", "GET", {"game": "crossover"}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:section_by_id", "GET", {"game": "crossover", "pk": "@section"}, EVERYONE, roles=SITE_ROLES),
    Spec("rules:section", "GET", {"game": "crossover", "number": "1"}, EVERYONE, roles=SITE_ROLES),
    Spec("signup", GP, {}, EVERYONE, roles=SITE_ROLES),
    # Personal API tokens (#14): anyone signed in; another user's token is a 404.
    Spec("tokens:account_tokens", GP, {}, SIGNED_IN, roles=SITE_ROLES, data={"name": "Bot", "scope": "read"}),
    Spec("tokens:account_token_revoke", "POST", {"token_id": "@token"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    # Claiming a placeholder account (#14): anyone with the link; an unknown one is a 404.
    Spec("claim_account", "*", {"token": "unknown-link"}, NOBODY, EVERYONE, roles=SITE_ROLES, login=False),
    Spec("login", "*", {}, EVERYONE, roles=SITE_ROLES),
    Spec("logout", "POST", {}, EVERYONE, roles=SITE_ROLES),
    Spec("password_change", "*", {}, SIGNED_IN, roles=SITE_ROLES),
    Spec("password_change_done", "GET", {}, SIGNED_IN, roles=SITE_ROLES),
    Spec("password_reset", "*", {}, EVERYONE, roles=SITE_ROLES),
    Spec("password_reset_done", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("password_reset_confirm", "*", {"uidb64": "MQ", "token": "set-password"}, EVERYONE, roles=SITE_ROLES),
    Spec("password_reset_complete", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("set_language", GP, {}, EVERYONE, roles=SITE_ROLES, ok=frozenset({302})),
    # --- the rest of the API, its schema and docs ------------------------------------------
    Spec("api-root", "GET", {}, SIGNED_IN, roles=SITE_ROLES, login=True),
    Spec("schema", "GET", {}, EVERYONE, roles=(ANONYMOUS, OUTSIDER)),
    Spec("api-docs", "GET", {}, EVERYONE, roles=(ANONYMOUS, OUTSIDER)),
    Spec("healthz", "GET", {}, EVERYONE, roles=(ANONYMOUS, OUTSIDER)),
    Spec("readyz", "GET", {}, EVERYONE, roles=(ANONYMOUS, OUTSIDER)),
    Spec("card-list", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("card-detail", "GET", {"pk": "@card"}, EVERYONE, roles=SITE_ROLES),
    Spec("deck-list", "GET", {}, SIGNED_IN, roles=SITE_ROLES, login=True),
    Spec("deck-list", "POST", {}, SIGNED_IN, roles=SITE_ROLES, data={"name": "Mine", "format": "crossover", "text": LEGAL_DECK}),
    Spec("deck-detail", "GET", {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES, login=True),
    Spec("deck-detail", "PUT", {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES, data={"name": "Renamed", "format": "crossover", "text": LEGAL_DECK}),
    Spec("deck-detail", "DELETE", {"pk": "@deck"}, {PLAYER}, EVERYONE, roles=SITE_ROLES),
    Spec("deck-check", "POST", {}, EVERYONE, roles=SITE_ROLES, data={"format": "crossover", "decklist": LEGAL_DECK}),
    Spec("rules-search-list", "GET", {}, EVERYONE, roles=SITE_ROLES, data={"q": "デッキ"}),
    Spec("rules-section-list", "GET", {}, EVERYONE, roles=SITE_ROLES),
    Spec("rules-section-detail", "GET", {"pk": "@section"}, EVERYONE, roles=SITE_ROLES),
    # --- the admin: the superuser only; everyone else is sent to the admin's login -------
    Spec("admin:login", "*", {}, EVERYONE, roles=ADMIN_ROLES, ok=frozenset({200, 302})),
    # Anyone else is sent to the admin's index (which asks for a login); GET is 405.
    Spec("admin:logout", "*", {}, EVERYONE, roles=ADMIN_ROLES, ok=frozenset({200, 302, 405})),
    # Content type 1 has no page on the site: the superuser gets 404.
    Spec("admin:view_on_site", "*", AUTO, NOBODY, {SITE_ADMIN}, roles=ADMIN_ROLES),
    # A job's progress; 404 when there is no job 1.
    Spec("admin:*_progress", "GET", AUTO, {SITE_ADMIN}, roles=ADMIN_ROLES, ok=frozenset({200, 404})),
    Spec("admin:*_progress", "POST", AUTO, roles=ADMIN_ROLES[:2]),
    Spec("admin/(?P<url>.*)$", "*", AUTO, NOBODY, {SITE_ADMIN}, roles=ADMIN_ROLES),
    # The old object URL redirects the superuser to the change page.
    Spec("admin/*/<path:object_id>/", "GET", AUTO, {SITE_ADMIN}, roles=ADMIN_ROLES, ok=frozenset({302})),
    Spec("admin/*/<path:object_id>/", "POST PUT PATCH DELETE", AUTO, roles=ADMIN_ROLES[:2]),
    # Every other admin page (the superuser's GET is enough to see it gets in). The
    # superuser may get 403 where a ModelAdmin lets nobody add or delete (the audit log,
    # rounds: only the services write them) and 302 to the list for a missing object.
    Spec("admin:*", "GET", AUTO, {SITE_ADMIN}, roles=ADMIN_ROLES, ok=frozenset({200, 302, 403})),
    Spec("admin:*", "POST", AUTO, roles=ADMIN_ROLES[:2]),
]
# fmt: on


# --- the world -------------------------------------------------------------------------

# The "@name" values SPECS may use.
WORLD_NAMES = (
    "A, A2, B, D: event ids; A.round, A2.round: round numbers (A's published, A2's draft); "
    "A.match, A2.match, B.match: match ids (PLAYER's match in A and A2, PLAYER_B's in B), "
    "with .version; A.registration (PLAYER's), B.registration (PLAYER_B's); A.penalty; "
    "A.deck_check (a failed deck check of PLAYER); A.webhook, B.webhook; A.token (JUDGE's token of A); "
    "token (PLAYER's personal API token); "
    "A.judge_staff, B.judge_staff: EventStaff ids; job: PLAYER's finished export of A's "
    "standings; site_admin: the superuser's id; deck (PLAYER's), card, ruling, section."
)

SMALL_RULES = "■■ R Version 1 ■■ 1 準備 ◆準備の本文。 1−1 デッキ ◆50枚。 2 対戦 ◆本文。"


def _card_pool():
    """The deck tests' small CrossOver pool and the built-in formats
    (tests/decks/conftest.py, which are function-scoped fixtures)."""
    game = GameFactory()
    specs = [
        ("beta", "βedition", ["β", "β版"], True),
        ("base", "基本セット", ["基本", "ベーシック"], False),
        ("setup", "Setup Deck", [], False),
        ("first", "FIRST EXPANSION", [], False),
        ("second", "SECOND EXPANSION", [], False),
        ("promo", "プロモーションカード", ["プロモ"], False),
        ("third", "THIRD EXPANSION", [], False),
    ]
    sets = {
        code: CardSetFactory(
            game=game, code=code, name=name, aliases=aliases, release_order=order, is_beta=beta
        )
        for order, (code, name, aliases, beta) in enumerate(specs, start=1)
    }
    satomi = CardFactory(
        game=game, name="森原 さとみ", card_type=CardType.CHARACTER, element=Element.FIRE
    )
    PrintingFactory(card=satomi, set=sets["base"], number="001")
    feeria = CardFactory(game=game, name="狡猾フィーリア", card_type=CardType.CHARACTER)
    PrintingFactory(card=feeria, set=sets["beta"], number="B-10", text="old")
    PrintingFactory(card=feeria, set=sets["base"], number="010", text="new")
    swati = CardFactory(
        game=game,
        name="スワティ",
        card_type=CardType.NAVIGATOR,
        element=Element.SKY,
        unlimited=True,
    )
    PrintingFactory(card=swati, set=sets["base"], number="100")
    GameFactory(slug="monster-collection", name="Monster Collection TCG")
    GameFactory(slug="asura-system", name="AsuraSystem TCG")
    formats = {fmt.slug: fmt for fmt in load_builtin_formats()}
    return game, satomi, formats["crossover"]


def _user(username: str, **extra):
    return get_user_model().objects.create_user(username, password="pw", **extra)


def _staffed(event, organizer, co_organizer, judge):
    services.add_staff(event, actor=organizer, user=co_organizer, role=StaffRole.CO_ORGANIZER)
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    return event


def _match_of(round_, user) -> Match:
    return Match.objects.get(Q(player1__player=user) | Q(player2__player=user), round=round_)


def build_world() -> SimpleNamespace:
    """Events A, A2, B and D and a user for every role, built through the services."""
    game, card, crossover = _card_pool()
    admin = _user("site-admin", is_superuser=True, is_staff=True)
    organizer, co_organizer, judge = _user("organizer"), _user("co-organizer"), _user("judge")
    outsider = _user("outsider")
    players = [_user(f"a-player{n}") for n in range(1, 7)]

    # A: round 1 closed, round 2 published and waiting for results.
    event_a = _staffed(
        open_event(organizer, crossover, name="Event A"), organizer, co_organizer, judge
    )
    registrations = register_all(event_a, players)
    services.start_event(event_a, actor=organizer)
    play_round(event_a, organizer)
    round_a = services.generate_round(event_a, actor=organizer)
    services.publish_round(round_a, actor=organizer)
    match_a = Match.objects.filter(round=round_a, player2__isnull=False).order_by("table")
    match_a, other_match = match_a[0], match_a[1]
    player = match_a.player1.player
    opponent = match_a.player2.player
    other_player = other_match.player1.player
    registration_a = next(r for r in registrations if r.player_id == player.pk)
    penalty = services.issue_penalty(
        registration_a, actor=judge, kind="warning", infraction="Slow play"
    )
    # A failed deck check of PLAYER in round 2 (one スワティ missing).
    deck_check = deck_checks.record_deck_check(
        registration_a,
        actor=judge,
        counted_text=LEGAL_DECK.replace("42 スワティ", "41 スワティ"),
        round_=round_a,
    )

    # A2: the same staff and players; round 2 generated, not published.
    event_a2 = _staffed(
        open_event(organizer, crossover, name="Event A2"), organizer, co_organizer, judge
    )
    register_all(event_a2, players)
    services.start_event(event_a2, actor=organizer)
    play_round(event_a2, organizer)
    round_a2 = services.generate_round(event_a2, actor=organizer)
    match_a2 = _match_of(round_a2, player)

    # B: another event with its own staff and players.
    organizer_b = _user("organizer-b")
    co_organizer_b, judge_b = _user("co-organizer-b"), _user("judge-b")
    event_b = _staffed(
        open_event(organizer_b, crossover, name="Event B"), organizer_b, co_organizer_b, judge_b
    )
    register_all(event_b, [_user(f"b-player{n}") for n in range(1, 5)])
    services.start_event(event_b, actor=organizer_b)
    play_round(event_b, organizer_b)
    round_b = services.generate_round(event_b, actor=organizer_b)
    services.publish_round(round_b, actor=organizer_b)
    match_b = Match.objects.filter(round=round_b, player2__isnull=False).order_by("table")[0]
    player_b = match_b.player1.player

    # D: a draft, seen by its staff only (A's staff).
    event_d = _staffed(
        new_event(organizer, crossover, name="Draft D"), organizer, co_organizer, judge
    )

    # A background export (a finished job) requested by PLAYER.
    with override_settings(EXPORT_SYNC_LIMIT=0):
        job = exports.export(player, event_a, kind="standings", file_format="csv")
    exports.run_export_job(job.pk)

    deck, _report = deck_services.save_deck(
        owner=player, fmt=crossover, name="My deck", text=LEGAL_DECK
    )
    document = rules_services.import_rules_document(
        game=game, text=SMALL_RULES, checksum="matrix"
    ).document
    ruling = rules_services.save_ruling(
        Ruling(game=game, question="How many cards?", answer="Fifty."), by=admin
    )
    match_a.refresh_from_db()
    match_a2.refresh_from_db()
    match_b.refresh_from_db()
    ids = {
        "A": event_a.pk,
        "A2": event_a2.pk,
        "B": event_b.pk,
        "D": event_d.pk,
        "A.round": round_a.number,
        "A2.round": round_a2.number,
        "A.match": match_a.pk,
        "A.match.version": match_a.version,
        "A2.match": match_a2.pk,
        "A2.match.version": match_a2.version,
        "B.match": match_b.pk,
        "B.match.version": match_b.version,
        "A.registration": registration_a.pk,
        "B.registration": Registration.objects.get(event=event_b, player=player_b).pk,
        "A.penalty": penalty.pk,
        "A.deck_check": deck_check.pk,
        "A.webhook": Webhook.objects.create(
            event=event_a,
            url="https://hooks.example.org/a",
            secret="s" * 20,
            kinds=["round.published"],
        ).pk,
        "B.webhook": Webhook.objects.create(
            event=event_b,
            url="https://hooks.example.org/b",
            secret="s" * 20,
            kinds=["round.published"],
        ).pk,
        "A.token": tokens.create_token(judge, name="Overlay", scope="read", event=event_a).token.pk,
        "token": tokens.create_token(player, name="Bot", scope="read").token.pk,
        "A.judge_staff": EventStaff.objects.get(event=event_a, user=judge).pk,
        "B.judge_staff": EventStaff.objects.get(event=event_b, user=judge_b).pk,
        "job": job.pk,
        "site_admin": admin.pk,
        "deck": deck.pk,
        "card": card.pk,
        "ruling": ruling.pk,
        "section": document.sections.order_by("order").first().pk,
    }
    users = {
        ANONYMOUS: None,
        OUTSIDER: outsider,
        SITE_ADMIN: admin,
        ORGANIZER: organizer,
        CO_ORGANIZER: co_organizer,
        JUDGE: judge,
        PLAYER: player,
        OPPONENT: opponent,
        OTHER_PLAYER: other_player,
        ORGANIZER_B: organizer_b,
        CO_ORGANIZER_B: co_organizer_b,
        JUDGE_B: judge_b,
        PLAYER_B: player_b,
    }
    return SimpleNamespace(ids=ids, users=users)


def resolve(value, world):
    """A spec value with its ``"@name"`` references replaced by the world's values."""
    if isinstance(value, dict):
        return {key: resolve(item, world) for key, item in value.items()}
    if isinstance(value, str) and value.startswith("@"):
        return world.ids[value[1:]]
    return value
