"""Deck legality, in plain Python: no Django, no database.

The Django layer turns stored formats, ban lists and the card pool into the dataclasses
of :mod:`decks.engine.model` and calls :func:`decks.engine.check.check_decklist` or
:func:`decks.engine.check.check_entries`.
"""
