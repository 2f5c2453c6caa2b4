"""Every admin page in Japanese: no label a judge or organizer reads is left in English.

A superuser opens, with the language set to Japanese, the admin index, every app's index,
and for every model registered in ``admin.site`` its change list, its add form (when
adding is allowed), the change form, history and delete pages of one object, and the job
progress and upload pages. On each, the visible labels — headings, column heads, field
labels, legends, filter titles, inline headings, buttons, actions — must hold no Latin
word outside :data:`ALLOWED` (abbreviations that stay Latin in Japanese). Data (object
names, cell values, choices of a filter) is not a label and is not looked at.

The test fails once, listing every page and string found.
"""

from __future__ import annotations

import contextlib
import datetime as dt

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import RequestFactory
from django.urls import NoReverseMatch, reverse

from cardpool.demo import load_demo_pool
from cardpool.models import Card, Game, ImportJob
from decks.builtin import load_builtin_formats
from decks.models import Deck, DeckCheck, DeckEntry, Format, RecheckJob
from rules import services as rules_services
from rules.models import Erratum, RulesDocument, Ruling, RulingStatus, Section
from tests.admin_html import latin_words, parse
from tournaments.demo import load_demo_events

pytestmark = pytest.mark.django_db

# Latin words that are right in a Japanese label: abbreviations printed on the cards or
# used as they are in Japanese, and product names.
ALLOWED = {
    "AP",
    "DP",
    "HP",
    "CSV",
    "URL",
    "JSON",
    "ID",
    "SHA-256",
    "API",
    "QR",
    "TCG",
    "PDF",
}

LABEL_TAGS = {"h1", "h2", "h3", "h4", "th", "label", "legend", "caption", "summary", "button"}
ACTION_LINK_CLASSES = {"button", "deletelink", "closelink", "addlink", "historylink"}


def _is_data(node) -> bool:
    """Parts of an admin page that show data, not labels."""
    classes = node.classes
    if node.tag in ("script", "style", "template", "td", "select", "textarea", "p"):
        return not (node.tag == "select" and node.attrs.get("name") == "action")
    if classes & {"breadcrumbs", "readonly", "inline_label", "paginator", "help", "messagelist"}:
        return True
    if node.attrs.get("id") in ("user-tools",):
        return True
    if node.tag == "tbody" and node.parent is not None:
        table = node.parent
        return table.attrs.get("id") == "result_list"
    if node.tag == "ul" and any(a.attrs.get("id") == "changelist-filter" for a in node.ancestors()):
        return True  # a filter's choices are values (games, formats…)
    # The change form's subtitle (an h2 right in #content) is the object's name.
    return node.tag == "h2" and node.parent is not None and node.parent.attrs.get("id") == "content"


def visible_labels(html: str) -> list[str]:
    root = parse(html)
    found = []

    def visit(node):
        for child in node.children:
            if isinstance(child, str) or _is_data(child):
                continue
            tag = child.tag
            if tag in LABEL_TAGS:
                found.append(child.text(_is_data))
                continue
            if tag == "input" and child.attrs.get("type") in ("submit", "button"):
                found.append(child.attrs.get("value", ""))
            elif tag == "option" and child.parent is not None and child.parent.tag == "select":
                found.append(child.text())  # only the actions' select gets this far
            elif tag == "a" and (
                child.classes & ACTION_LINK_CLASSES
                or any("object-tools" in a.classes for a in child.ancestors())
            ):
                found.append(child.text())
                continue
            visit(child)

    body = next((n for n in root.walk() if n.tag == "body"), root)
    visit(body)
    return [text for text in found if text]


def english_in(html: str, data: tuple[str, ...] = ()) -> list[str]:
    """The labels of ``html`` with Latin words, leaving out ``data`` (the names of the
    page's object, which headings such as "Change history: …" quote)."""
    problems = []
    for label in visible_labels(html):
        for value in data:
            label = label.replace(value, "")
        words = [word for word in latin_words(label) if word not in ALLOWED]
        if words:
            problems.append(f"{label!r} ({', '.join(words)})")
    return sorted(set(problems))


def test_the_label_finder_sees_labels_and_skips_data():
    html = """<body><div id="content"><h1>Change card</h1><h2>火の鳥</h2>
    <fieldset class="module"><h2>Printings</h2><table><thead><tr><th>CARD</th></tr></thead>
    <tbody><tr><td class="original"><p>Dragon (base)</p></td></tr></tbody></table></fieldset>
    <label for="x">AP:</label><div class="readonly">Some value</div>
    <nav id="changelist-filter"><details><summary>By game</summary><ul><li><a>Monster Collection</a>
    </li></ul></details></nav><table id="result_list"><tbody><tr><th><a>Hero</a></th></tr></tbody>
    </table><select name="action"><option>Delete selected cards</option></select>
    <select name="game"><option>CrossOver</option></select>
    <input type="submit" value="Save"><a class="deletelink" href="#">Delete</a></div></body>"""
    assert english_in(html) == sorted(
        [
            "'By game' (By, game)",
            "'CARD' (CARD)",
            "'Change card' (Change, card)",
            "'Delete selected cards' (Delete, selected, cards)",
            "'Delete' (Delete)",
            "'Printings' (Printings)",
            "'Save' (Save)",
        ]
    )


def _populate(user: User) -> None:
    """One object (at least) of every model the admin shows, made as the site makes them."""
    load_demo_pool()
    load_builtin_formats()
    load_demo_events()
    game = Game.objects.get(slug="crossover")
    fmt = Format.objects.get(slug="crossover")
    card = Card.objects.filter(game=game).first()
    deck = Deck.objects.create(owner=user, format=fmt, name="テスト用デッキ")
    DeckEntry.objects.create(deck=deck, card=card, count=4)
    DeckCheck.objects.create(
        deck=deck, format_version=1, as_of=dt.date(2026, 1, 1), legal=True, report={}
    )
    ImportJob.objects.create(game=game, filename="cards.csv", content=b"", created_by=user)
    RecheckJob.objects.create(format=fmt, format_version=fmt.version, created_by=user)
    document = RulesDocument.objects.create(
        game=game, title="Rules", version="1", style="crossover", checksum="0" * 64
    )
    section = Section.objects.create(document=document, number="1−1", title="Deck", order=1)
    ruling = rules_services.save_ruling(
        Ruling(game=game, question="Q?", answer="A.", status=RulingStatus.OFFICIAL),
        by=user,
        cards=[card],
        sections=[section],
    )
    ruling.answer = "A, changed."
    rules_services.save_ruling(ruling, by=user)
    erratum = rules_services.save_erratum(
        Erratum(card=card, date=dt.date(2026, 1, 1), new_text="New text."), by=user
    )
    rules_services.delete_erratum(erratum, by=user)
    from tournaments.models import DeckCheck as TableDeckCheck
    from tournaments.models import DeckCheckMethod, Event, ExportJob, Registration

    ExportJob.objects.create(
        event=Event.objects.first(), kind="standings", file_format="csv", created_by=user
    )
    registration = Registration.objects.select_related("event").first()
    TableDeckCheck.objects.create(
        event=registration.event,
        registration=registration,
        judge=user,
        method=DeckCheckMethod.PASTE,
        registered_text=registration.deck_text,
        counted_text=registration.deck_text,
        ok=True,
    )


def _pages(user: User) -> list[tuple[str, tuple[str, ...]]]:
    """(URL, the names of the data the page quotes in its headings)."""
    request = RequestFactory().get("/admin/")
    request.user = user
    urls = [(reverse("admin:index"), ())]
    app_labels = sorted({model._meta.app_label for model in admin.site._registry})
    urls += [(reverse("admin:app_list", args=[label]), ()) for label in app_labels]
    for model, model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        urls.append((reverse("admin:{}_{}_changelist".format(*info)), ()))
        if model_admin.has_add_permission(request):
            urls.append((reverse("admin:{}_{}_add".format(*info)), ()))
        obj = model_admin.get_queryset(request).order_by("pk").last()
        if obj is None:
            continue
        data = (str(obj),)
        urls.append((reverse("admin:{}_{}_change".format(*info), args=[obj.pk]), data))
        urls.append((reverse("admin:{}_{}_history".format(*info), args=[obj.pk]), data))
        if model_admin.has_delete_permission(request, obj):
            urls.append((reverse("admin:{}_{}_delete".format(*info), args=[obj.pk]), data))
        with contextlib.suppress(NoReverseMatch):
            urls.append((reverse("admin:{}_{}_progress".format(*info), args=[obj.pk]), data))
    urls.append((reverse("admin:cardpool_importjob_upload"), ()))
    return urls


def test_every_admin_page_is_in_japanese(client):
    user = User.objects.create_superuser("root", "root@example.invalid", "pw")
    _populate(user)
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ja"
    problems = []
    for url, data in _pages(user):
        response = client.get(url, follow=True)
        if response.status_code != 200:
            problems.append(f"{url}: status {response.status_code}")
            continue
        html = response.content.decode()
        assert 'lang="ja"' in html, url
        problems += [f"{url}: {found}" for found in english_in(html, data)]
    assert not problems, "English labels on Japanese admin pages:\n" + "\n".join(problems)
