import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from cardpool.demo import load_demo_pool
from decks.builtin import load_builtin_formats
from rules.demo import load_demo_rules
from tournaments.demo import DEMO_PASSWORD, load_demo_events
from tournaments.infractions import load_builtin_infractions

PASSWORD_FILE = settings.BASE_DIR / ".demo-admin-password"


class Command(BaseCommand):
    help = (
        "Load the built-in games, formats and infractions, the demo card pool, demo rules "
        "(a procedures document, rulings and errata marked 'Demo — not official') and demo "
        "events, and make sure an admin login exists (prints it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--no-admin", action="store_true", help="do not create the admin")
        parser.add_argument(
            "--site",
            default="http://127.0.0.1:8000/",
            help="the address the site is served at, for the printed admin login "
            "(./dev serve passes its own)",
        )

    def handle(self, *args, no_admin: bool, site: str, **options):
        summary = load_demo_pool()
        self.stdout.write(
            f"Demo pool: {summary.cards_created} cards added, {summary.cards_updated} updated, "
            f"{summary.cards_unchanged} unchanged."
        )
        formats = load_builtin_formats()
        self.stdout.write(f"Formats: {len(formats)} added.")
        infractions = load_builtin_infractions()
        self.stdout.write(f"Infractions: {len(infractions)} added.")
        rules = load_demo_rules()
        document = "added" if rules.document_created else "unchanged"
        self.stdout.write(
            f"Demo rules (not official): document {document} ({rules.sections} sections), "
            f"{rules.rulings_created} rulings and "
            f"{rules.errata_created} errata added."
        )
        events = load_demo_events()
        self.stdout.write(
            f"Demo events: {len(events)} added (players demo-player01…12, organizer "
            f"demo-organizer, password {DEMO_PASSWORD})."
        )
        if not no_admin:
            self._ensure_admin(site.rstrip("/") + "/admin/")

    def _ensure_admin(self, admin_url: str) -> None:
        user_model = get_user_model()
        user = user_model.objects.filter(username="admin").first()
        if user is None or not PASSWORD_FILE.exists():
            password = secrets.token_urlsafe(12)
            if user is None:
                user_model.objects.create_superuser("admin", "admin@example.invalid", password)
            else:
                user.set_password(password)
                user.save(update_fields=["password"])
            PASSWORD_FILE.write_text(password + "\n")
            PASSWORD_FILE.chmod(0o600)
        password = PASSWORD_FILE.read_text().strip()
        self.stdout.write(
            self.style.SUCCESS(
                f"Admin login: {admin_url}  user: admin  password: {password}"
                "  (stored in .demo-admin-password)"
            )
        )
