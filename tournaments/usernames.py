"""Usernames: one rule set for every name a person or a file gives an account.

A username is the name others see on pairings, standings and penalties, so two accounts must
never *look* alike. Every username that is set from input goes through this module: the
sign-up form, the user admin's add and change forms (``tournaments.accounts``,
``tournaments.admin``) and the event-file importer (:func:`confusable_problems`).

The rules (:func:`username_problem`, no database):

* not empty, at most 150 characters (the column's length);
* no space at either end;
* no character that changes the text direction (U+202A–U+202E, U+2066–U+2069) or that
  cannot be seen (zero-width spaces and joiners, direction marks, soft hyphen, fillers,
  variation selectors, other format and control characters);
* written in its NFKC form (``ｄｅｍｏ`` is written ``demo``; the forms normalise before
  validating, as Django's ``UsernameField`` does, so only a file can send such a name);
* what Django's ``UnicodeUsernameValidator`` accepts: letters and digits of any script,
  ``@ . + - _``.

Then the name must not look like another account's (:func:`validate_new_username`,
:func:`confusable_problems`): two names look alike when their :func:`skeleton` is the
same. The skeleton folds width (NFKC) and case (``str.casefold``), then applies the
confusable mapping of Unicode Technical Standard #39 ("Unicode Security Mechanisms",
section 4): ``skeleton(X) = NFD(map(NFD(X)))``, repeated after folding case again until
nothing changes, so ``DEM0`` (digit zero, whose prototype is a capital O) and ``demo``
meet too.

The mapping comes from ``confusable_homoglyphs`` (the data of Unicode's
``confusables.txt``; the library django-registration uses for the same purpose). Its data
lists, for each character, the characters it is confusable with, in both directions: for a
prototype all its sources, for a source its one prototype. The direction is read back as
follows (every source maps to exactly one prototype, and a prototype is never a source):

* an entry of two or more characters (``rn``) is a prototype;
* a character listed with two or more partners is a prototype (a source has one);
* a character whose only partner is a prototype is a source of it.

What is left are pairs whose members only know each other (``ꝸ`` and ``&``): the data
cannot tell which is the prototype, and for the comparison it does not matter, as long as
both map to one member chosen the same way every time. The member kept is one that
appears inside a multi-character prototype (so a mapped sequence and a typed one agree),
else one that NFD leaves unchanged, else the lower code point. Skeletons are therefore
equal exactly when UTS #39's are (with case and width folded), though a skeleton's text may
differ from ICU's; they are stored (:class:`~tournaments.models.UsernameSkeleton`) and
compared, never shown.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext as _

from cardpool.names import INVISIBLE, first_bidi_control

MAX_LENGTH = 150

# Django's UnicodeUsernameValidator's own pattern (django.contrib.auth.validators).
_ALLOWED = re.compile(r"[\w.@+-]")
_INVISIBLE = re.compile(f"[{INVISIBLE}]")
# Format (Cf: zero-width joiners, direction marks, soft hyphen, tag characters…) and
# control (Cc) characters: nobody sees them, so a name holding one looks like another.
_UNSEEN_CATEGORIES = frozenset({"Cf", "Cc"})
# Folding case after mapping can reveal a new source ("0" → "O" → "o"); each round only
# shrinks the set of distinct characters, and every name of the data settles by the third.
_MAX_ROUNDS = 4

# Characters U+200E that the library's generator kept around right-to-left characters
# (they come from confusables.txt's comments, where they keep the arrows in order).
_LRM = "\u200e"


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character → its prototype (see the module docstring)."""
    # Imported here: the data (a 9,600-entry JSON file) loads on the first skeleton, not
    # when Django starts.
    from confusable_homoglyphs.confusables import confusables_data

    partners: dict[str, set[str]] = defaultdict(set)
    for key, entries in confusables_data.items():
        char = key.replace(_LRM, "")
        for entry in entries:
            other = entry["c"].replace(_LRM, "")
            if char and other and char != other:
                partners[char].add(other)
    prototypes = {key for key, found in partners.items() if len(key) > 1 or len(found) > 1}
    in_sequences = {char for key in prototypes if len(key) > 1 for char in key}
    mapping: dict[str, str] = {}
    for char, found in partners.items():
        if char in prototypes:
            continue
        (other,) = found
        if other in prototypes or _kept_member(char, other, in_sequences) == other:
            mapping[char] = other
    return mapping


def _kept_member(first: str, second: str, in_sequences: set[str]) -> str:
    """The member of a pair that only know each other that both map to."""

    def rank(char: str) -> tuple[bool, bool, int]:
        return (
            char not in in_sequences,
            unicodedata.normalize("NFD", char) != char,
            ord(char),
        )

    return min(first, second, key=rank)


def _map_confusables(text: str) -> str:
    prototypes = _prototypes()
    return "".join(prototypes.get(char, char) for char in text)


def skeleton(name: str) -> str:
    """The key under which names that look alike meet: NFKC, casefold, then the UTS #39
    skeleton (NFD, confusable mapping, NFD), repeated after folding case until stable.
    ``skeleton("аdmin") == skeleton("admin") == skeleton("ADMIN")`` (Cyrillic а)."""
    text = unicodedata.normalize("NFKC", name)
    for _round in range(_MAX_ROUNDS):
        folded = text.casefold()
        mapped = unicodedata.normalize(
            "NFD", _map_confusables(unicodedata.normalize("NFD", folded))
        )
        if mapped == text:
            break
        text = mapped
    return text


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"


def _rule_problem(name: str) -> tuple[str, str] | None:
    """``(code, message)`` for the first rule ``name`` breaks, or None."""
    if not name:
        return "username_empty", _("Username is empty.")
    if len(name) > MAX_LENGTH:
        return "username_too_long", _("Username is longer than %(limit)s characters.") % {
            "limit": MAX_LENGTH
        }
    if name != name.strip():
        return "username_space", _("Username starts or ends with a space; remove it.")
    bidi = first_bidi_control(name)
    if bidi is not None:
        # The same message as the event forms' NoBidiControls.
        return "bidi_control", _(
            "%(field)s contains a character that changes the text direction "
            "(%(character)s); remove it."
        ) % {"field": _("Username"), "character": _code(bidi)}
    for char in name:
        if unicodedata.category(char) in _UNSEEN_CATEGORIES or _INVISIBLE.match(char):
            return "username_invisible", _(
                "Username contains an invisible character (%(character)s); remove it."
            ) % {"character": _code(char)}
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        return "username_not_normal", _(
            "Username contains full-width or other compatibility characters; "
            "write it as “%(normal)s”."
        ) % {"normal": normal}
    for char in name:
        if not _ALLOWED.match(char):
            return "username_character", _(
                "Username may not contain “%(character)s” (%(code)s): use only letters, "
                "digits and @ . + - _."
            ) % {"character": char, "code": _code(char)}
    return None


def username_problem(name: str) -> str | None:
    """What is wrong with ``name`` by the rules alone (no database), translated into the
    active language, or None when it follows them."""
    problem = _rule_problem(name)
    return None if problem is None else problem[1]


def _taken_message() -> str:
    return _("Username looks the same as an existing account's username; choose another.")


def _skeleton_owners(skeletons: Iterable[str]) -> dict[str, set[str]]:
    """Skeleton → the usernames of the existing accounts that have it (one query per
    thousand skeletons)."""
    from .models import UsernameSkeleton

    wanted = sorted(set(skeletons))
    owners: dict[str, set[str]] = defaultdict(set)
    for start in range(0, len(wanted), 1000):
        rows = UsernameSkeleton.objects.filter(skeleton__in=wanted[start : start + 1000])
        for key, username in rows.values_list("skeleton", f"user__{_username_field()}"):
            owners[key].add(username)
    return owners


def _username_field() -> str:
    return get_user_model().USERNAME_FIELD


def confusable_problems(names: list[str]) -> dict[str, str]:
    """For the event-file importer: each name of ``names`` that may not become a new
    account's username → why (translated). A name has a problem when it breaks the rules
    (:func:`username_problem`), when it looks like an existing account's username other
    than itself, or when it looks like another, different name of the same list. A name
    equal to an existing username is no problem here (the importer decides what it
    means); names without a problem are not in the result. Reads the skeleton table in
    one query per thousand distinct names; writes nothing."""
    problems: dict[str, str] = {}
    by_skeleton: dict[str, list[str]] = defaultdict(list)
    for name in dict.fromkeys(names):
        problem = username_problem(name)
        if problem is not None:
            problems[name] = problem
        else:
            by_skeleton[skeleton(name)].append(name)
    owners = _skeleton_owners(by_skeleton)
    for key, group in by_skeleton.items():
        existing = owners.get(key, set())
        for name in group:
            if name in existing:
                continue
            if existing:
                problems[name] = _taken_message()
            elif len(group) > 1:
                other = next(other for other in group if other != name)
                problems[name] = _("Username looks the same as “%(other)s”, also in this file.") % {
                    "other": other
                }
    return problems


def validate_new_username(name: str, *, exclude_pk: int | None = None) -> None:
    """Raise ``ValidationError`` when ``name`` may not be given to an account: it breaks
    the rules, or an account (other than ``exclude_pk``, the one being renamed) has a
    username that looks the same, the same name in other case included. One query."""
    from .models import UsernameSkeleton

    problem = _rule_problem(name)
    if problem is not None:
        code, message = problem
        raise ValidationError(message, code=code)
    others = UsernameSkeleton.objects.filter(skeleton=skeleton(name))
    if exclude_pk is not None:
        others = others.exclude(user_id=exclude_pk)
    if others.exists():
        raise ValidationError(_taken_message(), code="username_confusable")


@deconstructible
class UsernameValidator:
    """:func:`validate_new_username` as a form field validator; ``exclude_pk`` is the
    account being renamed (its own name is no conflict)."""

    def __init__(self, exclude_pk: int | None = None):
        self.exclude_pk = exclude_pk

    def __call__(self, value) -> None:
        validate_new_username(str(value), exclude_pk=self.exclude_pk)

    def __eq__(self, other) -> bool:
        return isinstance(other, UsernameValidator) and other.exclude_pk == self.exclude_pk


def record_skeletons(users: Iterable) -> None:
    """Store (or refresh) the skeleton of each user's username. The user model's
    ``post_save`` does this for one saved user; call it after ``bulk_create`` or a
    queryset ``update`` of usernames, which send no signal. One upsert per 500 users."""
    from .models import UsernameSkeleton

    rows = [
        UsernameSkeleton(user_id=user.pk, skeleton=skeleton(user.get_username())) for user in users
    ]
    UsernameSkeleton.objects.bulk_create(
        rows,
        batch_size=500,
        update_conflicts=True,
        unique_fields=["user"],
        update_fields=["skeleton"],
    )
