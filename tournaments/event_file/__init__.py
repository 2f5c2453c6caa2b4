"""The event file (``crossover-event/1``): one JSON document holding a whole event.

Described in docs/event-file.md; the JSON Schema is :data:`SCHEMA_PATH`.
``export_event(event, include_private=False)`` writes one, ``import_event(document,
actor=None)`` recreates the event (or raises :class:`EventFileRejected` with every
problem), ``validate(document)`` lists a file's problems without touching the database,
``read_document(raw)`` reads an uploaded file's bytes.
"""

from .export import export_event
from .importing import ImportOutcome, import_event
from .reading import nul_problems, read_document
from .schema import SCHEMA_NAME, SCHEMA_PATH, EventFileRejected, Problem, load_schema
from .validation import validate

__all__ = [
    "SCHEMA_NAME",
    "SCHEMA_PATH",
    "EventFileRejected",
    "ImportOutcome",
    "Problem",
    "export_event",
    "import_event",
    "load_schema",
    "nul_problems",
    "read_document",
    "validate",
]
