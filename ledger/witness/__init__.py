"""A club witness (C2SP ``tlog-witness``): it cosigns a campaign's checkpoints only if each is
consistent with the last it cosigned, so a GM who rewrites history after the witness saw it
cannot get the rewritten log cosigned.

- :mod:`ledger.witness.state`: the witness's state file (trusted log keys, and per origin the
  size and root it last cosigned), written atomically.
- :mod:`ledger.witness.core`: ``add-checkpoint`` as the spec says (statuses 200, 400, 403,
  404, 409, 422), independent of HTTP.
- :mod:`ledger.witness.server`: the HTTP endpoint (starlette + uvicorn).
- :mod:`ledger.witness.client`: :func:`~ledger.witness.client.add_checkpoint`, a log's side of
  the protocol, which verifies the cosignature it gets back.
"""
