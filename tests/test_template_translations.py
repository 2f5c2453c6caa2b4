"""No visible text in the project's templates outside the translation tags.

Every template under templates/ and <app>/templates/ is read with Django's own template
lexer; its text is walked as HTML. A text node with a letter in it that does not come from
``{% translate %}``, ``{% blocktranslate %}`` or a variable — or a ``title``, ``alt``,
``placeholder``, ``aria-label`` or ``data-label`` (a table cell's label on a phone)
attribute written out literally — is reported with its file and line. Comments (HTML and
template), ``<script>`` and ``<style>`` are not text. Whether each msgid has its Japanese
translation is tests/test_i18n.py's to check.

Latin abbreviations that stay as they are in Japanese (:data:`ALLOWED`) may be written out.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.template.base import Lexer, TokenType

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {
    "AP",
    "DP",
    "HP",
    "CSV",
    "XLSX",
    "JSON",
    "URL",
    "ID",
    "QR",
    "API",
    "SVG",
    "PDF",
    "TCG",
    "β",  # the βedition mark printed on cards
}
ATTRIBUTES = ("title", "alt", "placeholder", "aria-label", "data-label")
LETTER = re.compile(r"[^\W\d_]")
WORD = re.compile(r"[^\W\d_][\w'’\-]*")
# Stands for a template tag or variable inside the HTML being walked.
MARK = "\x00"


def template_files() -> list[Path]:
    found = sorted((ROOT / "templates").rglob("*.html"))
    for app_templates in sorted(ROOT.glob("*/templates")):
        if app_templates.parent.name in (".venv", "node_modules", "static"):
            continue
        found += sorted(app_templates.rglob("*.html"))
    return found


def has_words(text: str) -> bool:
    words = [word for word in WORD.findall(text) if word not in ALLOWED]
    return bool(words) and bool(LETTER.search(" ".join(words)))


class _Walker:
    """Walks a template's HTML across its tokens, keeping whether it is inside a tag, a
    comment, a script or style element."""

    def __init__(self):
        self.in_tag = False
        self.quote = ""
        self.tag = ""  # the raw text of the tag being read
        self.comment = False
        self.raw_until = ""  # "</script" or "</style" while inside one
        self.text = ""
        self.text_line = 0
        self.problems: list[tuple[int, str]] = []

    def flush_text(self):
        if has_words(self.text.replace(MARK, " ")):
            self.problems.append((self.text_line, " ".join(self.text.replace(MARK, "…").split())))
        self.text = ""

    def end_tag(self, line: int):
        tag = self.tag
        self.tag = ""
        name = re.match(r"<\s*(/?[a-zA-Z0-9-]+)", tag)
        name = name.group(1).lower() if name else ""
        if name in ("script", "style") and not tag.rstrip().endswith("/>"):
            self.raw_until = f"</{name}"
        for attribute in ATTRIBUTES:
            for value in re.findall(rf'\b{attribute}\s*=\s*"([^"]*)"', tag):
                if has_words(value.replace(MARK, " ")):
                    self.problems.append((line, f'{attribute}="{value.replace(MARK, "…")}"'))

    def feed_text(self, text: str, line: int):
        index = 0
        while index < len(text):
            rest = text[index:]
            if self.raw_until:
                end = rest.lower().find(self.raw_until)
                if end < 0:
                    return
                self.raw_until = ""
                index += end
                continue
            if self.comment:
                end = rest.find("-->")
                if end < 0:
                    return
                self.comment = False
                index += end + 3
                continue
            char = text[index]
            if self.in_tag:
                self.tag += char
                if self.quote:
                    if char == self.quote:
                        self.quote = ""
                elif char in "\"'":
                    self.quote = char
                elif char == ">":
                    self.in_tag = False
                    self.end_tag(line + text.count("\n", 0, index))
                index += 1
                continue
            if rest.startswith("<!--"):
                self.flush_text()
                self.comment = True
                index += 4
                continue
            if char == "<" and re.match(r"<[/!a-zA-Z]", rest):
                self.flush_text()
                self.in_tag = True
                self.tag = char
                index += 1
                continue
            if not self.text.strip():
                self.text_line = line + text.count("\n", 0, index)
            self.text += char
            index += 1

    def feed_mark(self):
        """A variable or a tag that writes text (translated, or data)."""
        if self.in_tag:
            self.tag += MARK
        elif not (self.comment or self.raw_until):
            self.text += MARK


def untranslated(source: str) -> list[tuple[int, str]]:
    walker = _Walker()
    skipping = []  # the end tags of {% comment %}, {% blocktranslate %}, {% verbatim %}
    for token in Lexer(source).tokenize():
        if skipping:
            if token.token_type == TokenType.BLOCK and token.contents.split()[0] == skipping[-1]:
                skipping.pop()
                walker.feed_mark()
            continue
        if token.token_type == TokenType.TEXT:
            walker.feed_text(token.contents, token.lineno)
        elif token.token_type == TokenType.VAR:
            walker.feed_mark()
        elif token.token_type == TokenType.BLOCK:
            name = token.contents.split()[0] if token.contents else ""
            if name in ("comment", "blocktranslate", "blocktrans", "verbatim"):
                skipping.append({"blocktrans": "endblocktrans"}.get(name, f"end{name}"))
            elif name in ("translate", "trans", "url", "static", "now", "csrf_token"):
                walker.feed_mark()
            elif name in (
                "if",
                "elif",
                "else",
                "endif",
                "for",
                "empty",
                "endfor",
                "block",
                "endblock",
                "with",
                "endwith",
            ):
                # A branch or loop boundary ends the text node written so far.
                if not walker.in_tag and not walker.comment and not walker.raw_until:
                    walker.flush_text()
            else:
                walker.feed_mark()
    walker.flush_text()
    return walker.problems


def test_the_walker_finds_text_outside_translation_tags():
    source = (
        "{% load i18n %}<h1>{% translate 'Cards' %}</h1>\n"
        "<p>Hello {{ name }}</p>{# note #}{% comment %}Not text{% endcomment %}\n"
        '<a title="Open" href="{% url \'x\' %}">'
        "{% blocktranslate %}Go {{ x }}{% endblocktranslate %}</a>\n"
        "<script>const label = 'Text';</script><style>p::after{content:'x'}</style>\n"
        "<!-- a comment --><span>AP</span><span>12 × 3 — {{ n }}</span><b>禁止</b>\n"
        "<input placeholder=\"{% translate 'Name' %}\">"
    )
    assert untranslated(source) == [
        (2, "Hello …"),
        (3, 'title="Open"'),
        (5, "禁止"),
    ]


def test_templates_have_no_text_outside_translation_tags():
    problems = []
    for path in template_files():
        for line, text in untranslated(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert not problems, "Visible text outside {% translate %}:\n" + "\n".join(problems)
