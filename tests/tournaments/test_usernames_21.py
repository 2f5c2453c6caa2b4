"""Every username, from a form or a file, goes through one set of rules and may not look
like an existing account's (issue #21, "Usernames outside the rules"): UTS #39 skeletons
with case and width folded (``tournaments.usernames``)."""

import importlib
import time

import pytest
from django.apps import apps as django_apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from tournaments.accounts import SignupForm
from tournaments.admin import SiteUserAdmin, SiteUserChangeForm, SiteUserCreationForm
from tournaments.models import UsernameSkeleton
from tournaments.usernames import (
    confusable_problems,
    record_skeletons,
    skeleton,
    username_problem,
    validate_new_username,
)

User = get_user_model()
PASSWORD = "a-Long-pass-123"

TAKEN = "Username looks the same as an existing account's username; choose another."
SPACE = "Username starts or ends with a space; remove it."

# The ten names of the issue, each with the one message sign-up gives for it while the
# accounts ``admin`` and ``demo-organizer`` exist.
REFUSED = [
    ("\u0430dmin", TAKEN),  # Cyrillic а
    (" admin", SPACE),
    ("DEMO-ORGANIZER", TAKEN),
    ("\uff44\uff45\uff4d\uff4f-organizer", TAKEN),  # full-width ｄｅｍｏ (NFKC: demo-organizer)
    ("demo\u200dorganizer", "Username contains an invisible character (U+200D); remove it."),
    (
        "<img src=x>",
        "Username may not contain “<” (U+003C): use only letters, digits and @ . + - _.",
    ),
    ("adm\u0456n", TAKEN),  # U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
    ("demo-\u043erganizer", TAKEN),  # Cyrillic о
    (
        "new\u202eplayer",
        "Username contains a character that changes the text direction (U+202E); remove it.",
    ),
    ("admin ", SPACE),
]

ACCEPTED = ["newplayer", "山田太郎", "kenji_2", "やまだ_たろう", "Ｔａｒｏ"]


@pytest.fixture(autouse=True)
def _english():
    """Messages are compared in English unless a test says otherwise (a request with
    another accept-language earlier in the run leaves that language active)."""
    with translation.override("en"):
        yield


@pytest.fixture
def existing(db):
    return [
        User.objects.create_user("admin", password=PASSWORD),
        User.objects.create_user("demo-organizer", password=PASSWORD),
    ]


def _signup_form(username):
    return SignupForm(data={"username": username, "password1": PASSWORD, "password2": PASSWORD})


# --- skeleton -------------------------------------------------------------------------


def test_skeleton_folds_lookalikes_case_and_width():
    assert skeleton("admin") == "adrnin"  # "m" looks like "rn" (UTS #39's prototype)
    for name in ["\u0430dmin", "ADMIN", "adm\u0456n", "\uff41\uff44\uff4d\uff49\uff4e", "adrnin"]:
        assert skeleton(name) == "adrnin"
    assert skeleton("DEM0") == skeleton("demo") == "derno"  # digit zero, capital O
    assert skeleton("demo-\u043erganizer") == skeleton("demo-organizer")


def test_skeleton_keeps_different_names_apart():
    names = ["admin", "admins", "kenji_2", "kenji_3", "山田太郎", "山田次郎", "demo", "dema"]
    assert len({skeleton(name) for name in names}) == len(names)


def test_skeleton_meets_japanese_lookalikes():
    # Katakana ロ and the kanji 口, the long-vowel mark ー and the kanji 一.
    assert skeleton("ロー") == skeleton("口一")
    assert skeleton("ロー") != skeleton("ロン")


# --- the rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "Username is empty."),
        ("a" * 151, "Username is longer than 150 characters."),
        (" admin", SPACE),
        ("admin\u3000", SPACE),
        (
            "ad\u2066min",
            "Username contains a character that changes the text direction (U+2066); remove it.",
        ),
        ("ad\u200bmin", "Username contains an invisible character (U+200B); remove it."),
        ("ad\u00admin", "Username contains an invisible character (U+00AD); remove it."),
        ("ad\ufe0fmin", "Username contains an invisible character (U+FE0F); remove it."),
        ("ad\x07min", "Username contains an invisible character (U+0007); remove it."),
        (
            "\uff44\uff45\uff4d\uff4f",
            "Username contains full-width or other compatibility characters; write it as “demo”.",
        ),
        (
            "kenji 2",
            "Username may not contain “ ” (U+0020): use only letters, digits and @ . + - _.",
        ),
        (
            "山田・太郎",
            "Username may not contain “・” (U+30FB): use only letters, digits and @ . + - _.",
        ),
    ],
)
def test_username_problem_names_the_rule(name, problem):
    assert username_problem(name) == problem


@pytest.mark.parametrize("name", ["admin", "kenji_2", "山田太郎", "a.b@c+d-e_f", "a" * 150])
def test_username_problem_none_for_ordinary_names(name):
    assert username_problem(name) is None


def test_username_problem_in_japanese():
    with translation.override("ja"):
        assert username_problem(" admin") == (
            "ユーザー名の先頭または末尾に空白があります。取り除いてください。"
        )
        assert username_problem("a\u200db") == (
            "ユーザー名に見えない文字（U+200D）が含まれています。取り除いてください。"
        )


# --- sign-up --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "message"), REFUSED)
def test_signup_form_refuses_the_issues_names(existing, name, message):
    form = _signup_form(name)
    assert not form.is_valid()
    assert form.errors["username"] == [message]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "message"), REFUSED)
def test_signup_page_refuses_the_issues_names(client, existing, name, message):
    response = client.post(
        reverse("signup"), {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [message]
    assert User.objects.count() == 2


def test_signup_page_message_in_japanese(client, existing):
    response = client.post(
        reverse("signup"),
        {"username": "adm\u0456n", "password1": PASSWORD, "password2": PASSWORD},
        headers={"accept-language": "ja"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [
        "ユーザー名が既存のアカウントのユーザー名と見分けがつきません。別の名前を選んでください。"
    ]


@pytest.mark.parametrize("name", ACCEPTED)
def test_signup_accepts_ordinary_names(client, existing, name):
    response = client.post(
        reverse("signup"), {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    stored = "Taro" if name == "Ｔａｒｏ" else name  # Django's UsernameField applies NFKC
    user = User.objects.get(username=stored)
    assert UsernameSkeleton.objects.get(user=user).skeleton == skeleton(stored)


def test_signup_page_says_what_a_username_may_contain(client, db):
    response = client.get(reverse("signup"))
    assert response.status_code == 200
    assert (
        "Up to 150 characters: letters of any script (such as 山田太郎), digits and "
        "@ . + - _, with no spaces or invisible characters."
    ) in response.content.decode()


# --- validate_new_username --------------------------------------------------------------


def test_validate_new_username_codes(existing):
    with pytest.raises(ValidationError) as taken:
        validate_new_username("ADMIN")
    assert taken.value.code == "username_confusable"
    with pytest.raises(ValidationError) as space:
        validate_new_username("admin2 ")
    assert space.value.code == "username_space"
    validate_new_username("admin2")  # no error


def test_validate_new_username_ignores_the_account_renamed(existing):
    admin_user = existing[0]
    validate_new_username("Admin", exclude_pk=admin_user.pk)
    with pytest.raises(ValidationError):
        validate_new_username("Demo-Organizer", exclude_pk=admin_user.pk)


def test_validate_new_username_one_query(existing, django_assert_num_queries):
    with django_assert_num_queries(1):
        validate_new_username("kenji_2")


# --- the bulk check for the event-file importer ------------------------------------------


def test_confusable_problems_exact(existing):
    names = [
        "admin",  # an existing account's own name: the importer decides
        "\u0430dmin",
        "Admin",
        "DEMO-ORGANIZER",
        " bob",
        "kenji_2",
        "kenji_2",  # the same name twice is one name
        "rnary",
        "mary",  # "m" looks like "rn"
        "山田太郎",
        "\uff44\uff45\uff4d\uff4f",
        "<img src=x>",
    ]
    assert confusable_problems(names) == {
        "\u0430dmin": TAKEN,
        "Admin": TAKEN,
        "DEMO-ORGANIZER": TAKEN,
        " bob": SPACE,
        "rnary": "Username looks the same as “mary”, also in this file.",
        "mary": "Username looks the same as “rnary”, also in this file.",
        "\uff44\uff45\uff4d\uff4f": (
            "Username contains full-width or other compatibility characters; write it as “demo”."
        ),
        "<img src=x>": (
            "Username may not contain “<” (U+003C): use only letters, digits and @ . + - _."
        ),
    }


def test_confusable_problems_none_for_ordinary_names(existing):
    assert confusable_problems(["kenji_2", "山田太郎", "newplayer", "demo-organizer"]) == {}


def test_confusable_problems_in_japanese(existing):
    with translation.override("ja"):
        assert confusable_problems(["rnary", "mary", "Admin"]) == {
            "rnary": "ユーザー名が、同じファイルにある「mary」と見分けがつきません。",
            "mary": "ユーザー名が、同じファイルにある「rnary」と見分けがつきません。",
            "Admin": (
                "ユーザー名が既存のアカウントのユーザー名と見分けがつきません。"
                "別の名前を選んでください。"
            ),
        }


def test_confusable_problems_5000_names_in_five_queries(existing, django_assert_num_queries):
    names = [f"player{number:04d}" for number in range(4999)]
    started = time.perf_counter()
    with django_assert_num_queries(5):
        assert confusable_problems([*names, "ADMIN"]) == {"ADMIN": TAKEN}
    assert time.perf_counter() - started < 5


# --- keeping the skeletons ----------------------------------------------------------------


def test_new_and_renamed_users_get_their_skeleton(db):
    user = User.objects.create_user("kenji_2", password=PASSWORD)
    assert UsernameSkeleton.objects.get(user=user).skeleton == "kenji_2"
    user.username = "mary"
    user.save()
    assert UsernameSkeleton.objects.get(user=user).skeleton == "rnary"
    assert UsernameSkeleton.objects.count() == 1


def test_a_save_without_the_username_writes_no_skeleton(db, django_assert_num_queries):
    user = User.objects.create_user("kenji_2", password=PASSWORD)
    with django_assert_num_queries(1):
        user.save(update_fields=["last_login"])


def test_record_skeletons_after_bulk_create(db):
    users = User.objects.bulk_create([User(username="mary"), User(username="kenji_2")])
    assert UsernameSkeleton.objects.count() == 0  # bulk_create sends no post_save
    record_skeletons(users)
    assert dict(UsernameSkeleton.objects.values_list("user__username", "skeleton")) == {
        "mary": "rnary",
        "kenji_2": "kenji_2",
    }
    User.objects.filter(username="mary").update(username="Mary2")
    record_skeletons(User.objects.filter(username="Mary2"))  # an upsert: one row per user
    assert dict(UsernameSkeleton.objects.values_list("user__username", "skeleton")) == {
        "Mary2": "rnary2",
        "kenji_2": "kenji_2",
    }
    assert confusable_problems(["rnary2"]) == {"rnary2": TAKEN}


def test_migration_records_existing_accounts(db):
    User.objects.bulk_create([User(username="mary"), User(username="ADMIN")])
    migration = importlib.import_module("tournaments.migrations.0014_username_skeleton")
    migration.record_existing(django_apps, None)
    assert sorted(UsernameSkeleton.objects.values_list("user__username", "skeleton")) == [
        ("ADMIN", "adrnin"),
        ("mary", "rnary"),
    ]


# --- the user admin -------------------------------------------------------------------


def test_user_admin_uses_the_username_rules():
    assert isinstance(admin.site._registry[User], SiteUserAdmin)
    assert SiteUserAdmin.add_form is SiteUserCreationForm
    assert SiteUserAdmin.form is SiteUserChangeForm


def test_user_admin_add_form_refuses_a_lookalike(existing):
    form = SiteUserCreationForm(
        data={
            "username": "adm\u0456n",
            "usable_password": "true",
            "password1": PASSWORD,
            "password2": PASSWORD,
        }
    )
    assert not form.is_valid()
    assert form.errors["username"] == [TAKEN]


def _change_form_data(user, username):
    return {
        "username": username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "date_joined": "2026-11-01 10:00:00",
    }


def test_user_admin_change_form_refuses_renaming_to_a_lookalike(existing):
    organizer = existing[1]
    form = SiteUserChangeForm(instance=organizer, data=_change_form_data(organizer, "\u0430dmin"))
    assert not form.is_valid()
    assert form.errors["username"] == [TAKEN]


def test_user_admin_change_form_allows_own_name_in_other_case(existing):
    organizer = existing[1]
    form = SiteUserChangeForm(
        instance=organizer, data=_change_form_data(organizer, "Demo-Organizer")
    )
    assert form.is_valid(), form.errors
    form.save()
    assert UsernameSkeleton.objects.get(user=organizer).skeleton == skeleton("demo-organizer")


def test_user_admin_add_page_refuses_a_lookalike(client, existing):
    User.objects.create_superuser("site-admin", password=PASSWORD)
    client.force_login(User.objects.get(username="site-admin"))
    response = client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "demo-\u043erganizer",
            "usable_password": "true",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["username"] == [TAKEN]
    assert not User.objects.filter(username="demo-\u043erganizer").exists()
