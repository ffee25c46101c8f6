"""The web view, ``campaign serve``: one table's live log, sheets, recaps and audits
in a browser, with capability links per player and an in-browser verifier.

- :mod:`ledger.web.access`: access links (random 128-bit tokens, stored hashed, revocable)
  and who plays whom.
- :mod:`ledger.web.app`: the Starlette app (routes, sessions, CSRF, CSP, SSE).
- ``templates/`` and ``static/``: every page and asset the app serves (no CDN, no build step).
"""
