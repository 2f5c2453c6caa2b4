"""Who the people named in an event file are on this site.

A file names *participants*, not accounts of this site: it speaks only for whoever
imports it. So an import by an ordinary user (the pages, the API) maps the file's names
like this:

* the importer's own username → the importer;
* a name the event already knows (a :class:`~tournaments.models.FileIdentity` of this
  event: a placeholder an earlier import of it made, claimed or accepted since) → that
  account again, so re-importing an event keeps its claim links and accepted accounts;
* when the file replaces an event, a user who already had a registration or a staff role
  in it → that user, in no other place than the one they had (a registration for a
  registered player, the same staff role for a staff member);
* any other name → a new placeholder account that belongs to this event (inactive, no
  password; ``name`` kept as a ``FileIdentity``), never an existing account, whoever has
  that username here. Its username is the file's name when nobody here has it, else the
  name with a random ``+suffix``.

An existing account joins the event only when its owner accepts: a claim link its
organizer hands them, opened while signed in (``tournaments.services.claims``).

A site administrator's import, and the ``import_event`` command (the server's own
operator), are trusted: names that exist here are those accounts, as the file says.

Every act the file records (result submissions, penalties, deck checks, audit entries)
is stored with ``imported=True`` and shown "per the imported file", whoever it names.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import Event, EventStaff, FileIdentity, Registration
from ..usernames import confusable_problems, record_skeletons
from .schema import Problem

BATCH = 500
SUFFIX_BYTES = 3  # "+" and six hex digits after a taken name


def is_trusted(actor) -> bool:
    """The command (no actor) and a site administrator may attach existing accounts."""
    return actor is None or bool(getattr(actor, "is_superuser", False))


@dataclass
class People:
    """The file's names mapped to accounts, and what the mapping decided."""

    users: dict[str, object]
    created: list[str] = field(default_factory=list)  # names given a new placeholder
    # Untrusted imports: existing users kept from the replaced event, by name, with the
    # places they had there ("player", or a staff role).
    members: dict[str, set[str]] = field(default_factory=dict)
    trusted: bool = True


def _members(event: Event | None) -> dict[str, set[str]]:
    """Users who took part in ``event`` before the replace, and in what place."""
    if event is None:
        return {}
    places: dict[str, set[str]] = {}
    user_model = get_user_model()
    field_name = user_model.USERNAME_FIELD
    for name in Registration.objects.filter(event=event).values_list(
        f"player__{field_name}", flat=True
    ):
        places.setdefault(name, set()).add("player")
    for name, role in EventStaff.objects.filter(event=event).values_list(
        f"user__{field_name}", "role"
    ):
        places.setdefault(name, set()).add(role)
    return places


def _known(event: Event | None) -> dict[str, object]:
    """The event's own names: each FileIdentity by its name and by its account's
    username (a file exported after the import names the account)."""
    if event is None:
        return {}
    known: dict[str, object] = {}
    identities = list(FileIdentity.objects.filter(event=event).select_related("user"))
    for identity in identities:
        known.setdefault(identity.user.get_username(), identity.user)
    for identity in identities:
        known[identity.name] = identity.user
    return known


def resolve(rows: list[dict], *, event: Event | None, actor) -> People:
    """Map the file's ``users`` rows to accounts (see the module's text); placeholders
    for the names left are created here (their ``FileIdentity`` rows by
    :func:`record_identities`, once the event exists)."""
    user_model = get_user_model()
    names = [row["username"] for row in rows]
    trusted = is_trusted(actor)
    users: dict[str, object] = {}
    members: dict[str, set[str]] = {}
    if trusted:
        users = {u.get_username(): u for u in user_model.objects.filter(username__in=names)}
        # The event's own names still mean its own accounts (a re-import by the command of
        # an event an ordinary user imported keeps its placeholders).
        known = _known(event)
        users.update((name, known[name]) for name in names if name in known)
    else:
        known = _known(event)
        members = _members(event)
        member_users = {
            u.get_username(): u
            for u in user_model.objects.filter(username__in=[n for n in names if n in members])
        }
        kept: dict[str, set[str]] = {}
        for name in names:
            if name == actor.get_username():
                users[name] = actor
            elif name in known:
                users[name] = known[name]
            elif name in member_users:
                users[name] = member_users[name]
                kept[name] = members[name]
        members = kept
    missing = [row for row in rows if row["username"] not in users]
    usernames = _free_usernames([row["username"] for row in missing])
    unusable = make_password(None)
    created = user_model.objects.bulk_create(
        [
            user_model(
                username=usernames[row["username"]],
                first_name=row["first_name"],
                last_name=row["last_name"],
                email=row.get("email", ""),
                is_active=False,
                password=unusable,
            )
            for row in missing
        ],
        batch_size=BATCH,
    )
    if created and created[0].pk is None:  # a backend that does not return ids
        by_username = {
            u.get_username(): u
            for u in user_model.objects.filter(username__in=list(usernames.values()))
        }
        created = [by_username[usernames[row["username"]]] for row in missing]
    for row, user in zip(missing, created, strict=True):
        users[row["username"]] = user
    record_skeletons(created)  # bulk_create sends no post_save
    return People(
        users=users,
        created=[row["username"] for row in missing],
        members=members,
        trusted=trusted,
    )


def _free_usernames(names: list[str]) -> dict[str, str]:
    """A username for each new placeholder: the name itself when no account has it,
    else the name with ``+`` and six random hex digits (within the 150 characters a
    username may have)."""
    user_model = get_user_model()
    taken = set(user_model.objects.filter(username__in=names).values_list("username", flat=True))
    chosen: dict[str, str] = {}
    for name in names:
        chosen[name] = name if name not in taken else None
    while any(value is None for value in chosen.values()):
        tries = {
            name: f"{name[: 150 - 1 - 2 * SUFFIX_BYTES]}+{secrets.token_hex(SUFFIX_BYTES)}"
            for name, value in chosen.items()
            if value is None
        }
        clash = set(
            user_model.objects.filter(username__in=list(tries.values())).values_list(
                "username", flat=True
            )
        ) | set(names)
        seen: set[str] = set()
        for name, username in tries.items():
            if username not in clash and username not in seen:
                chosen[name] = username
                seen.add(username)
    return chosen


def record_identities(event: Event, people: People) -> None:
    """One ``FileIdentity`` per placeholder just made: it belongs to ``event``."""
    FileIdentity.objects.bulk_create(
        [FileIdentity(event=event, name=name, user=people.users[name]) for name in people.created],
        batch_size=BATCH,
    )


def place_problems(document: dict, people: People) -> list[Problem]:
    """An untrusted import may keep an existing user only where the replaced event had
    them: a registration for a registered player, the same role for a staff member."""
    if people.trusted or not people.members:
        return []
    problems = []
    for index, row in enumerate(document["registrations"]):
        places = people.members.get(row["player"])
        if places is not None and "player" not in places:
            problems.append(
                Problem(
                    f"registrations[{index}].player",
                    _(
                        "%(name)s has an account on this site and was not registered in this "
                        "event: an import cannot register someone else"
                    )
                    % {"name": repr(row["player"])},
                )
            )
    for index, row in enumerate(document["event"]["staff"]):
        places = people.members.get(row["user"])
        if places is not None and row["role"] not in places:
            problems.append(
                Problem(
                    f"event.staff[{index}].role",
                    _(
                        "%(name)s has an account on this site: an import cannot give it a "
                        "role it did not have in this event; add them on the staff page"
                    )
                    % {"name": repr(row["user"])},
                )
            )
    return problems


def username_problems(document: dict) -> list[Problem]:
    """Every username the file gives goes through the site's one username validator
    (``tournaments.usernames``): the sign-up rules, and no name that looks like another
    account's or another name's in the file (a name equal to an existing username is a
    person this mapping handles, not a problem)."""
    names = [row["username"] for row in document["users"]]
    found = confusable_problems(names)
    return [
        Problem(f"users[{index}].username", found[name])
        for index, name in enumerate(names)
        if name in found
    ]


def new_names_count(document, actor) -> int:
    """How many placeholders an ordinary import of ``document`` by ``actor`` would make,
    read cheaply before the file is validated (for the account quota): its distinct
    usernames, less the importer's and those the event of its uid already knows. A
    malformed file counts what it can (the schema names what is wrong)."""
    if is_trusted(actor) or not isinstance(document, dict):
        return 0
    rows = document.get("users")
    names = {
        row.get("username")
        for row in (rows if isinstance(rows, list) else ())
        if isinstance(row, dict) and isinstance(row.get("username"), str)
    }
    names.discard(actor.get_username())
    event_data = document.get("event")
    uid = event_data.get("uid") if isinstance(event_data, dict) else None
    try:
        event = Event.objects.filter(uid=uid).first() if isinstance(uid, str) else None
    except (ValueError, ValidationError):
        event = None
    if event is not None and names:
        names -= set(_known(event)) | set(_members(event))
    return len(names)
