"""Rules search with 6,000 sections and rulings, on a fresh database.

    .venv/bin/python bench/rules_search.py [--copies 20] [--rulings 1800] [--repeat 5]

Imports the documents of ../shared/seeds/ (the five rules documents; the script stops if
none is there), then adds ``--copies`` − 1 varied copies of each as further document
series (current, so all are searched), ``--rulings`` rulings made from their sentences
and 300 cards, and times ``rules.selectors.search_rules`` (first page of 20 results,
highlighted, as the API and the search page call it) for a mix of judges' queries, each
with and without a game filter. Prints the p50, p95 and max per query and the p95 of the
API endpoint. Uses a new SQLite file in a temporary folder unless DATABASE_URL is set
(then that database must be empty or disposable). Target (issue 6): p95 ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
sys.path.insert(0, str(ROOT))

SEED_GAMES = {
    "000": ("crossover", "CrossOver The F&C TCG"),
    "001": ("monster-collection", "Monster Collection TCG"),
    "002": ("crossover", "CrossOver The F&C TCG"),
    "003": ("cross-universe", "Cross Universe"),
    "004": ("asura-system", "AsuraSystem"),
}
SEED_SERIES = {"002": "wiki"}

QUERIES = [
    "対象",
    "割込",
    "維持費",
    "4-3-8",
    "４－３－８",
    "3−2−2",
    "ダメージ",
    "キャラクター AP",
    "ｷｬﾗｸﾀｰ",
    "All Turn",
    "山名春恵",
    "柴崎拓也",
    "クラッシュ",
    "エネルギー",
    "ドローフェイズ",
    "攻撃力",
    "block",
    "使用の手順",
    "デッキ",
    "誘発",
    "コスト 支払い",
    "セットアップフェイズ",
    "card 17",
    "存在しない言葉",
    "の",
]


def vary(body: str, copy: int, rng: random.Random) -> str:
    """The same lines in another order, with a copy mark: like a different edition."""
    lines = body.split("\n")
    if len(lines) > 1:
        shift = copy % len(lines)
        lines = lines[shift:] + lines[:shift]
    if lines and rng.random() < 0.5:
        lines.append(f"(edition {copy})")
    return "\n".join(lines)


def api_urlconf():
    """The rules search endpoint as config/urls.py is to register it."""
    import types

    from django.urls import include, path
    from rest_framework.routers import DefaultRouter

    from rules.api import RulesSearchViewSet

    router = DefaultRouter()
    router.register("rules/search", RulesSearchViewSet, basename="rules-search")
    module = types.ModuleType("rules_search_bench_urls")
    module.urlpatterns = [
        path("rules/", include("rules.urls")),
        path("api/v1/", include(router.urls)),
    ]
    sys.modules[module.__name__] = module
    return module.__name__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--rulings", type=int, default=1_800)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="rules-search-bench-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{folder}/bench.sqlite3")
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import override_settings

    from cardpool.models import Card, Game
    from rules.models import Ruling, RulingStatus, Section
    from rules.parsing import parse_document
    from rules.selectors import search_rules
    from rules.services import import_parsed_document
    from rules.text import search_key

    seeds = sorted(SEEDS.glob("[0-9][0-9][0-9]_*.txt"))
    if not seeds:
        sys.exit(f"no rules documents in {SEEDS}; the benchmark needs ../shared/seeds/")

    call_command("migrate", verbosity=0)
    rng = random.Random(6)
    started = time.perf_counter()
    games: dict[str, Game] = {}
    for path in seeds:
        prefix = path.name[:3]
        slug, name = SEED_GAMES.get(prefix, (f"game-{prefix}", f"Game {prefix}"))
        game = games.get(slug) or Game.objects.create(slug=slug, name=name)
        games[slug] = game
        parsed = parse_document(path.read_text(encoding="utf-8"))
        series = SEED_SERIES.get(prefix, "rules")
        for copy in range(args.copies):
            sections = tuple(
                dataclasses.replace(section, body=vary(section.body, copy, rng))
                if copy
                else section
                for section in parsed.sections
            )
            import_parsed_document(
                game=game,
                parsed=dataclasses.replace(parsed, sections=sections),
                checksum=f"{prefix}-{copy}",
                series=series if copy == 0 else f"{series}-copy-{copy}",
                source_name=path.name,
            )
    cards = Card.objects.bulk_create(
        Card(
            game=rng.choice(list(games.values())),
            name=f"card {index}",
            name_key=f"card{index}",
            search_key=f"card{index}",
        )
        for index in range(300)
    )
    sentences = [
        sentence.strip()
        for body in Section.objects.values_list("body", flat=True)[:2_000]
        for sentence in body.replace("\n", "。").split("。")
        if len(sentence.strip()) > 8
    ]
    rulings = []
    for index in range(args.rulings):
        question = f"{rng.choice(sentences)}?"
        answer = f"{rng.choice(sentences)}。"
        card = rng.choice(cards)
        rulings.append(
            Ruling(
                game_id=card.game_id,
                question=question,
                answer=answer,
                status=RulingStatus.OFFICIAL if index % 4 else RulingStatus.COMMUNITY,
                search_text=search_key(f"{question}\n{answer}\n{card.name}"),
            )
        )
    Ruling.objects.bulk_create(rulings, batch_size=500)
    sections = Section.objects.filter(document__is_current=True).count()
    print(
        f"data: {sections:,} current sections + {len(rulings):,} rulings = "
        f"{sections + len(rulings):,} ({len(cards)} cards), built in "
        f"{time.perf_counter() - started:.1f} s on {connection.vendor}"
    )

    # The project's URLs do not list the rules app until config/urls.py includes it.
    with override_settings(ROOT_URLCONF=api_urlconf()):
        search_rules("warm up")
        timings: list[float] = []
        worst: dict[str, float] = {}
        for query in QUERIES:
            for game in (None, "crossover"):
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    results = search_rules(query, game=game, page_size=20)
                    elapsed = (time.perf_counter() - start) * 1000
                    timings.append(elapsed)
                    key = f"{query} [{game or 'all'}] ({results.total} results)"
                    worst[key] = max(worst.get(key, 0), elapsed)

        client = Client()
        api_timings = []
        for query in QUERIES:
            for _ in range(args.repeat):
                start = time.perf_counter()
                response = client.get("/api/v1/rules/search/", {"q": query})
                api_timings.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200, response.content[:200]

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1]

    print("slowest queries (ms):")
    for key, elapsed in sorted(worst.items(), key=lambda item: -item[1])[:5]:
        print(f"  {elapsed:6.1f}  {key}")
    print(
        f"search_rules: {len(timings)} searches, p50 {statistics.median(timings):.1f} ms, "
        f"p95 {p95(timings):.1f} ms, max {max(timings):.1f} ms (target p95 <= 50 ms)"
    )
    print(f"GET /api/v1/rules/search/: {len(api_timings)} requests, p95 {p95(api_timings):.1f} ms")


if __name__ == "__main__":
    main()
