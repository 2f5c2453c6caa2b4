"""`manage.py import_rules`: new versions, what changed, all or nothing, clear errors."""

import pytest
from django.core.management import CommandError, call_command

from rules.models import RulesDocument, Section
from tests.factories import GameFactory
from tests.rules.conftest import SEED_GAMES, seed_path

pytestmark = pytest.mark.django_db


def run(*args):
    from io import StringIO

    out = StringIO()
    call_command("import_rules", *[str(arg) for arg in args], stdout=out)
    return out.getvalue()


@pytest.fixture
def crossover_game():
    return GameFactory(slug="crossover")


def test_import_crossover_rulebook(crossover_game):
    output = run("--game", "crossover", seed_path("000"))
    document = RulesDocument.objects.get()
    assert document.is_current
    assert (document.version, str(document.date), document.style) == (
        "2.02",
        "2002-03-28",
        "oneline",
    )
    assert document.sections.count() == 106
    assert "106 sections, 2 to review" in output
    assert "review 3−2−2 カードを1枚引く" in output
    assert "review 3−6 エンドフェイズ" in output
    assert "first version" in output
    section = Section.objects.get(document=document, number_key="4-3-8-1")
    assert section.parent.number == "4−3−8"
    assert section.level == 4
    assert section.search_title == "無効になる情報の決定の特殊な例"
    flagged = Section.objects.filter(needs_review=True).order_by("order")
    assert [(s.number, s.parent.number) for s in flagged] == [("3−2−2", "3−3"), ("3−6", "3")]
    assert flagged[0].review_flags[1] == {
        "code": "misplaced_number",
        "params": {"number": "3−2−2", "parent": "3−3"},
    }


def test_reimporting_the_same_file_changes_nothing(crossover_game):
    run("--game", "crossover", seed_path("000"))
    output = run("--game", "crossover", seed_path("000"))
    assert "already imported as version 2.02" in output
    assert RulesDocument.objects.count() == 1


def test_new_version_keeps_the_old_one_and_reports_changes(crossover_game, tmp_path):
    run("--game", "crossover", seed_path("000"))
    text = seed_path("000").read_text(encoding="utf-8")
    # An edited copy: 3−5 filled in, 1−5 gone, a word changed in 4−2−13.
    edited = (
        text.replace(" 3−6 エンドフェイズ ", " 3−5 追加の節 ◆新しい本文。 3−6 エンドフェイズ ")
        .replace(" 1−5 カウンターの準備 ", " ")
        .replace("4−2−13 対象 ◆", "4−2−13 対象 ◆【改訂】")
        .replace("Version 2.02", "Version 2.03")
    )
    new_file = tmp_path / "rules-2.03.txt"
    new_file.write_text(edited, encoding="utf-8")
    output = run("--game", "crossover", new_file)
    assert RulesDocument.objects.count() == 2
    old, new = RulesDocument.objects.order_by("id")
    assert (old.is_current, new.is_current) == (False, True)
    assert old.sections.count() == 106  # kept whole
    assert new.version == "2.03"
    assert "compared with version 2.02 (kept): 1 added, 1 removed, 2 changed." in output
    assert "added: 3−5 追加の節" in output
    assert "removed: 1−5 カウンターの準備" in output
    assert "changed: 4−2−13 対象 (body)" in output
    assert new.changes["previous"] == {"id": old.pk, "version": "2.02"}
    assert new.changes["added"] == [{"number": "3−5", "title": "追加の節"}]
    assert new.changes["removed"] == [{"number": "1−5", "title": "カウンターの準備"}]
    # Without its heading, 1−5's text is part of 1−4: that section changed too.
    assert [c["number"] for c in new.changes["changed"]] == ["1−4", "4−2−13"]
    # The gap at 3−5 is filled in the new version.
    assert not Section.objects.filter(document=new, number_key="3-6", needs_review=True).exists()


@pytest.mark.parametrize(
    ("prefix", "style", "sections"),
    [("001", "parts", 33), ("002", "wiki", 16), ("003", "bullets", 34), ("004", "chapters", 22)],
)
def test_import_other_documents(prefix, style, sections):
    slug, name = SEED_GAMES[prefix]
    GameFactory(slug=slug, name=name)
    output = run("--game", slug, seed_path(prefix))
    document = RulesDocument.objects.get(game__slug=slug)
    assert document.style == style
    assert document.sections.count() == sections
    assert f"{sections} sections" in output
    # Every parent link points into the same document.
    assert (
        not Section.objects.filter(document=document)
        .exclude(parent__isnull=True)
        .exclude(parent__document=document)
        .exists()
    )


def test_style_can_be_forced(crossover_game):
    with pytest.raises(CommandError, match="no section headings found for the 'oneline' style"):
        run("--game", "crossover", "--style", "oneline", seed_path("003"))
    assert not RulesDocument.objects.exists()


def test_title_version_and_date_options(crossover_game):
    run(
        "--game",
        "crossover",
        "--title",
        "CrossOver wiki",
        "--doc-version",
        "wiki-1",
        "--date",
        "2022-12-09",
        seed_path("002"),
    )
    document = RulesDocument.objects.get()
    assert (document.title, document.version, str(document.date)) == (
        "CrossOver wiki",
        "wiki-1",
        "2022-12-09",
    )


def test_unknown_game_lists_known_games(crossover_game):
    with pytest.raises(CommandError, match="unknown game 'mtg'; known games: crossover"):
        run("--game", "mtg", seed_path("000"))


def test_missing_file(crossover_game, tmp_path):
    with pytest.raises(CommandError, match="cannot read the file"):
        run("--game", "crossover", tmp_path / "nope.txt")


def test_file_in_another_encoding(crossover_game, tmp_path):
    path = tmp_path / "sjis.txt"
    path.write_bytes("1 はじめに 1−1 用語 ◆本文 2 おわり ◆本文".encode("cp932"))
    with pytest.raises(CommandError, match=r"not utf-8 text .* --encoding cp932"):
        run("--game", "crossover", path)
    output = run("--game", "crossover", "--encoding", "cp932", path)
    assert "3 sections" in output
    assert Section.objects.get(number_key="1-1").number == "1－1"  # as decoded


def test_bad_date(crossover_game):
    with pytest.raises(CommandError, match="--date '28/3/2002' is not a date"):
        run("--game", "crossover", "--date", "28/3/2002", seed_path("000"))


def test_failed_import_writes_nothing(crossover_game, tmp_path, monkeypatch):
    run("--game", "crossover", seed_path("000"))
    path = tmp_path / "new.txt"
    path.write_text("1 はじめに ◆a 1−1 用語 ◆b 2 おわり ◆c", encoding="utf-8")

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Section.objects, "bulk_update", explode)
    with pytest.raises(RuntimeError):
        run("--game", "crossover", path)
    document = RulesDocument.objects.get()  # the old version only, still current
    assert document.is_current
    assert Section.objects.count() == 106


def test_a_heading_too_long_to_be_one_is_refused(crossover_game, tmp_path):
    path = tmp_path / "long.txt"
    path.write_text(f"1 {'あ' * 400} ◆a 1−1 b ◆b 2 c ◆c", encoding="utf-8")
    with pytest.raises(CommandError, match=r"heading 1 .* is longer than a heading can be"):
        run("--game", "crossover", path)
    assert not RulesDocument.objects.exists()
