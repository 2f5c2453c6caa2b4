"""The event file (``crossover-event/1``): one JSON document holding a whole event.

Described in docs/event-file.md; the JSON Schema is :data:`SCHEMA_PATH`.
"""

from .schema import SCHEMA_NAME, SCHEMA_PATH, EventFileRejected, Problem, load_schema

__all__ = [
    "SCHEMA_NAME",
    "SCHEMA_PATH",
    "EventFileRejected",
    "Problem",
    "load_schema",
]
