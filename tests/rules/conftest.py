"""Fixtures for the rules tests.

The rules documents are not ours to copy: tests read them from ../shared/seeds/ next to
the repository and skip when they are absent.
"""

from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User

from rules.services import file_checksum, import_rules_document
from tests.factories import GameFactory

SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"

# Seed file prefix → (game slug, game name).
SEED_GAMES = {
    "000": ("crossover", "CrossOver The F&C TCG"),
    "001": ("monster-collection", "Monster Collection TCG"),
    "002": ("crossover", "CrossOver The F&C TCG"),
    "003": ("cross-universe", "Cross Universe"),
    "004": ("asura-system", "AsuraSystem"),
}


def seed_path(prefix: str) -> Path:
    matches = sorted(SEEDS.glob(f"{prefix}_*.txt"))
    if not matches:
        pytest.skip(f"rules document {prefix}_*.txt not found in {SEEDS} (../shared/seeds)")
    return matches[0]


def seed_text(prefix: str) -> str:
    return seed_path(prefix).read_text(encoding="utf-8")


def import_seed(prefix: str, **options):
    slug, name = SEED_GAMES[prefix]
    game = GameFactory(slug=slug, name=name)
    data = seed_path(prefix).read_bytes()
    return import_rules_document(
        game=game,
        text=data.decode("utf-8"),
        checksum=file_checksum(data),
        source_name=seed_path(prefix).name,
        **options,
    )


@pytest.fixture
def crossover_rules(db):
    """The CrossOver Basic Rules v2.02 imported as the current document."""
    return import_seed("000").document


@pytest.fixture
def judge(db):
    """A staff member allowed to edit rulings and errata (and to look cards up)."""
    user = User.objects.create_user("judge", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="rules")
        | Permission.objects.filter(codename="view_card")
    )
    return user


@pytest.fixture
def outsider(db):
    """Signed up, but neither staff nor judge."""
    return User.objects.create_user("outsider", password="pw")


@pytest.fixture
def staff_without_rules(db):
    """Staff, but without any permission on the rules."""
    return User.objects.create_user("clerk", password="pw", is_staff=True)
