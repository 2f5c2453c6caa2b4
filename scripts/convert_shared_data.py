"""Turn the research data in ../shared/data into the shipped demo pool.

Run by hand when the research data changes:

    python scripts/convert_shared_data.py ../shared/data cardpool/demo

Only facts are carried over (names, types, costs, stats, sets, rarities, the research
summary as a note); unknown values stay empty. The site never reads ../shared itself.
"""

import json
import sys
from pathlib import Path

SET_CODES = {
    "βedition": "beta",
    "基本セット": "base",
    "FIRST EXPANSION": "first",
    "SECOND EXPANSION": "second",
    "THIRD EXPANSION": "third",
    "フェアリーテールデッキ (preconstructed)": "fairytale",
}


def convert_card(record: dict) -> dict:
    name = record["name"]
    alternate = name.endswith(" (alt art)")
    if alternate:  # a second printing of the same card, not a new name
        name = name.removesuffix(" (alt art)")
    row = {"name": name}
    if record.get("set"):
        row["set"] = SET_CODES[record["set"]]
    for key in ("card_type", "element", "cost", "gender", "ap", "dp", "rarity"):
        if record.get(key) is not None:
            row[key] = record[key]
    summary = record.get("text_summary") or ""
    if "unlimited copies allowed" in summary:
        row["unlimited"] = True
    notes = [part for part in (summary, record.get("notes")) if part]
    if record.get("source"):
        notes.append(f"Source: {record['source']}")
    if notes and not alternate:  # the card's note comes from its main printing's row
        row["notes"] = "\n".join(notes)
    return row


def main(source: Path, target: Path) -> None:
    lines = (source / "cards.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    rows = [convert_card(record) for record in records]
    # Rule 1−2−1 bans these β printings because the basic set changed their effect: so each
    # of them has a basic-set printing too, which stays legal.
    for record in records:
        if record.get("set_basis") == "official rules v2.02 ban note":
            rows.append({"name": record["name"], "set": "base"})
    with (target / "cards.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} rows to {target / 'cards.jsonl'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
