"""The tournament rules engine: plain Python, no Django, no database.

Modules: ``games`` (best-of-three adjudication, rulebook 4−1), ``swiss`` (optimal Swiss
pairing), ``matching`` (the exact matching solver it uses), ``standings`` (tiebreak profiles
``mtr`` and ``pokemon`` with per-player working), ``bracket`` (single-elimination top cut),
``eventfile`` (the shared benchmark's JSON formats) and ``errors``. The site's apps load
data, call these functions and store what they return.
"""
