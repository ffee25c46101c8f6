"""The OpenAPI 3.1 description of ``/api/v1``, generated from the msgspec types of
:mod:`ledger.web.api.types` (:func:`msgspec.json.schema_components`), never written by hand.

It declares every status, header and media type the endpoints send (tests compare recorded
answers with it): problem documents as ``application/problem+json``, ``WWW-Authenticate``
on 401, ``Retry-After`` on 429 and 503, ``ETag`` and ``If-None-Match`` on the log, 413 and
415 on every body-taking operation. What every answer carries (the security headers of
:data:`ledger.web.app.SECURITY_HEADERS`) and the answers of paths and methods no operation
has (404, 405 with ``Allow``) are told in ``info.description``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.web.api import types as t

REF = "#/components/schemas/{name}"

#: The tags operations are grouped by, alphabetical, each with its description.
TAGS = [
    {"name": "campaign", "description": "The campaign, its characters and their sheets."},
    {"name": "log", "description": "The log of events, page by page, and the whole export."},
    {"name": "proofs", "description": "Signed checkpoints and Merkle proofs against them."},
    {"name": "rolls", "description": "Rolls of physical dice, roll requests and their answers."},
]

DESCRIPTION = """\
The JSON API of `campaign serve`: what the web view shows the token's holder, for scripts
and bots. Every request carries `Authorization: Bearer TOKEN` (`campaign access add NAME
--api`); a `read` or `roll` token sees the players' view (GM-only events as stubs), a `gm`
token the GM's. Every refusal is an RFC 9457 problem document (`application/problem+json`).

Every answer also carries `Content-Security-Policy`, `X-Content-Type-Options: nosniff`,
`Referrer-Policy`, `X-Frame-Options`, `Cross-Origin-Opener-Policy` and
`Cache-Control: no-store`. A path no operation has is a 404 problem; a method a path does
not answer is a 405 problem with `Allow` naming the methods it does. A body over 16 KiB is
refused unread (413); a body not sent as `application/json` is refused (415).
"""


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _header(text: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"description": text, "schema": schema or {"type": "string"}}


#: The headers answers declare (``components.headers``).
HEADERS = {
    "RetryAfter": _header(
        "Seconds to wait before trying again.", {"type": "integer", "minimum": 1}
    ),
    "ETag": _header("The page in the caller's view and the log's head, a strong entity tag."),
    "WWWAuthenticate": _header("`Bearer realm=\"campaign\"` (and `error=\"invalid_token\"`)."),
}

#: What each problem status means, in general (an operation may add its own words).
PROBLEMS = {
    400: "A query value that is not a whole number, or a body that is not the operation's type.",
    401: "No token, or an unknown or revoked one.",
    403: "The token's scope does not allow this operation (or this character).",
    404: "Not found.",
    409: "Already answered or withdrawn, or another entry was written at the same moment.",
    413: "A body over 16 KiB, refused unread.",
    415: "A body not sent as `application/json`.",
    422: "A value outside its range, or what the rules refuse (nothing written).",
    429: "Too many writes from a player's token: wait `Retry-After` seconds.",
    503: "The database cannot be reached just now (nothing was saved, or see the detail).",
}

#: The headers each problem status carries.
PROBLEM_HEADERS = {401: "WWWAuthenticate", 429: "RetryAfter", 503: "RetryAfter"}


def param_schema(system: Any, param: Any) -> dict[str, Any]:
    """The JSON Schema of one roll option (a :class:`ledger.rules.roll_inputs.RollParam`), from
    its declaration: a switch a boolean; a number an integer with its ``minimum`` and
    ``maximum``; a closed set of choices an ``enum`` (integers for a number's); a value
    given several times an array of them. ``description`` is the label and the help (as
    the roll form shows it),
    ``default`` the form's starting value, ``examples`` the named suggestions."""
    item: dict[str, Any]
    if param.is_flag:
        item = {"type": "boolean"}
    elif param.type is int:
        item = {"type": "integer"}
        if param.choices:
            item["enum"] = [int(c) for c in param.choices]
        else:
            if param.min is not None:
                item["minimum"] = param.min
            if param.max is not None:
                item["maximum"] = param.max
    else:
        item = {"type": "string", "minLength": 1}
        if param.choices:
            item = {"type": "string", "enum": list(param.choices)}
        elif param.suggestions:
            item["examples"] = list(param.suggestions)
    schema = {"type": "array", "items": item, "minItems": 1} if param.multiple else dict(item)
    from ledger.web.roll_help import option_hint

    help_text = option_hint(system, param.help).strip()
    schema["description"] = f"{param.title.rstrip('.')}. {help_text}" if help_text else param.title
    if param.default is not None and param.default is not False:
        default = param.default
        if param.type is int and not param.is_flag and isinstance(default, str):
            default = int(default)
        schema["default"] = [default] if param.multiple else default
    return schema


def params_schema(system: Any) -> dict[str, Any]:
    """The JSON Schema of a body's ``params`` for ``system``: one typed property per roll
    option it declares (:func:`param_schema`), no others."""
    return {
        "type": "object",
        "description": f"{system.name}'s roll options, by name; each optional.",
        "properties": {p.name: param_schema(system, p) for p in system.roll_params},
        "additionalProperties": False,
    }


def document(system: Any = None) -> dict[str, Any]:
    """The OpenAPI 3.1 document: every path, its parameters, bodies, answers and headers.

    :param system: the campaign's rule system: the bodies' ``params`` are described as its
        roll options (component ``RollParams``); ``None``: as a map of names to values.
    """
    kinds = [t.CampaignInfo, list[t.Character], t.Sheet, t.LogPage, t.RollIn, t.RollOut,
             t.Checkpoint, t.Problem, list[t.OpenRequest], t.AnswerIn, t.Proof, t.RequestIn]  # fmt: skip
    schemas, components = msgspec.json.schema_components(kinds, ref_template=REF)
    (campaign, chars, sheet, page, roll_in, roll_out, cp, prob, reqs, answer_in, proof,
     request_in) = schemas  # fmt: skip
    if system is not None:
        components["RollParams"] = params_schema(system)
        for body_type in ("RollIn", "RequestIn"):
            properties = components[body_type]["properties"]
            properties["params"] = {"$ref": REF.format(name="RollParams"), "default": {}}

    def problem(code: int, text: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "description": text or PROBLEMS[code],
            "content": {"application/problem+json": {"schema": prob}},
        }
        if code in PROBLEM_HEADERS:
            out["headers"] = {
                {"WWWAuthenticate": "WWW-Authenticate", "RetryAfter": "Retry-After"}[
                    PROBLEM_HEADERS[code]
                ]: {"$ref": f"#/components/headers/{PROBLEM_HEADERS[code]}"}
            }
        return out

    def answers(
        ok: dict[str, Any], *codes: int, status: int = 200, text: str = "OK", **own: str
    ) -> dict[str, Any]:
        out: dict[str, Any] = {str(status): {"description": text, "content": _json(ok)}}
        for code in sorted({401, 403, 503, *codes}):
            out[str(code)] = problem(code, own.get(f"e{code}"))
        return out

    def query(name: str, text: str, low: int, high: int | None = None) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "integer", "minimum": low}
        schema["maximum"] = t.MAX_QUERY_INT if high is None else high
        return {"name": name, "in": "query", "required": False, "description": text,
                "schema": schema}  # fmt: skip

    def op(
        op_id: str, tag: str, summary: str, description: str, responses: dict[str, Any],
        **more: Any,
    ) -> dict[str, Any]:  # fmt: skip
        return {"operationId": op_id, "tags": [tag], "summary": summary,
                "description": description, **more, "responses": responses}  # fmt: skip

    def body(schema: dict[str, Any], text: str) -> dict[str, Any]:
        return {"required": True, "description": text, "content": _json(schema)}

    seq_path = {
        "name": "seq", "in": "path", "required": True, "description": "The request's seq.",
        "schema": {"type": "integer", "minimum": 1, "maximum": t.MAX_QUERY_INT},
    }  # fmt: skip
    character_path = {
        "name": "character", "in": "path", "required": True,
        "description": "The character's id or name (any case).", "schema": {"type": "string"},
    }  # fmt: skip
    DEFAULT_LIMIT, MAX_LIMIT = t.DEFAULT_LIMIT, t.MAX_LIMIT

    log_answers = answers(page, 400, 422, text="A page of the log.")
    log_answers["200"]["headers"] = {"ETag": {"$ref": "#/components/headers/ETag"}}
    log_answers["304"] = {
        "description": "Not modified: the page and the head are as the ETag named.",
        "headers": {"ETag": {"$ref": "#/components/headers/ETag"}},
    }
    request_answers = answers(
        roll_out, 400, 404, 413, 415, 422, status=201, text="Asked: its seq and log line.",
        e404="No such character (or one the token may not see).",
    )  # fmt: skip
    # the request's seq is what its answer names (OpenAPI links: schemathesis's stateful runs
    # follow them, and so can a client generator); a new entry's inclusion proof cannot
    # answer before the next checkpoint, so none is linked
    request_answers["201"]["links"] = {
        "answer": {
            "operationId": "answer",
            "parameters": {"seq": "$response.body#/seq"},
            "description": "The asked player answers the request.",
        },
    }
    export_answers = answers({"type": "string"}, text="The export.")
    export_answers["200"] = {
        "description": "The export in the caller's view: one JSON object a line.",
        "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Campaign Ledger API",
            "version": "1",
            "description": DESCRIPTION,
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
            "contact": {"name": "The GM who serves this campaign"},
        },
        "servers": [{"url": "/api/v1", "description": "This campaign's server."}],
        "tags": TAGS,
        "components": {
            "schemas": components,
            "headers": HEADERS,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token of `campaign access add NAME --api`.",
                }
            },
        },
        "security": [{"bearer": []}],
        "paths": {
            "/campaign": {
                "get": op(
                    "campaign", "campaign", "The campaign",
                    "Its id, name, rule system and head, and the token's scope and holder.",
                    answers(campaign),
                )  # fmt: skip
            },
            "/characters": {
                "get": op(
                    "characters", "campaign", "The characters",
                    "Those the token may see; `mine`: those it may roll for.",
                    answers(chars),
                )  # fmt: skip
            },
            "/sheet/{character}": {
                "get": op(
                    "sheet", "campaign", "A character's sheet",
                    "The sheet in the token's view, at the head or as of a seq.",
                    answers(sheet, 400, 404, 422,
                            e404="No such character (or one the token may not see).",
                            e422="`as_of` is not a seq of the log."),
                    parameters=[
                        character_path,
                        query("as_of", "The sheet as of this seq (default: the head).", 1),
                    ],
                )  # fmt: skip
            },
            "/log": {
                "get": op(
                    "log", "log", "A page of the log",
                    "Entries with `since < seq <= since + limit` in the token's view, each "
                    "with its chain `hash` and `prev_hash`; `next` is the `since` of the "
                    "following page. Send the `ETag` back as `If-None-Match` (compared "
                    "weakly, `*` matches) to get 304 until the log moves.",
                    log_answers,
                    parameters=[
                        query("since", "Entries after this seq (default 0).", 0),
                        query("limit", f"At most this many entries (default {DEFAULT_LIMIT}).",
                              1, MAX_LIMIT),
                        {"name": "If-None-Match", "in": "header", "required": False,
                         "description": "An ETag of this page seen before (or `*`).",
                         "schema": {"type": "string"}},
                    ],
                )  # fmt: skip
            },
            "/export.ndjson": {
                "get": op(
                    "export", "log", "The export",
                    "The whole log in the token's view as `campaign export` writes it "
                    "(a player's has a stub for each GM-only event), then the signed "
                    "checkpoints.",
                    export_answers,
                )  # fmt: skip
            },
            "/checkpoint": {
                "get": op(
                    "checkpoint", "proofs", "The newest checkpoint",
                    "The newest signed checkpoint and the key that verifies it.",
                    answers(cp, 404, e404="No checkpoint is signed yet."),
                )  # fmt: skip
            },
            "/proof/consistency": {
                "get": op(
                    "consistency", "proofs", "A consistency proof",
                    "From the tree of `old` events to the newest checkpoint's.",
                    answers(proof, 400, 404, 422, e404="No checkpoint is signed yet.",
                            e422="`old` is outside 1 to the checkpoint's size."),
                    parameters=[query("old", "The size of the older tree.", 1)],
                )  # fmt: skip
            },
            "/proof/inclusion": {
                "get": op(
                    "inclusion", "proofs", "An inclusion proof",
                    "Event `seq` in the newest checkpoint's tree (an event after the "
                    "checkpoint is not in it yet: 422).",
                    answers(proof, 400, 404, 422, e404="No checkpoint is signed yet.",
                            e422="`seq` is outside 1 to the checkpoint's size."),
                    parameters=[query("seq", "The event to prove.", 1)],
                )  # fmt: skip
            },
            "/requests": {
                "get": op(
                    "requests", "rolls", "Open roll requests",
                    "The open roll requests addressed to the token's player (none for the "
                    "GM's token).",
                    answers(reqs),
                )  # fmt: skip
            },
            "/request": {
                "post": op(
                    "request", "rolls", "Ask for a roll",
                    "Scope `gm`: ask a character's player for a roll, as `campaign request`.",
                    request_answers,
                    requestBody=body(request_in, "The character, skill and roll options."),
                )  # fmt: skip
            },
            "/answer/{seq}": {
                "post": op(
                    "answer", "rolls", "Answer a roll request",
                    "Scope `roll`: answer an open request with 32 random bytes of the "
                    "caller (`entropy`) or the faces of physical dice (`dice`), not both.",
                    answers(roll_out, 400, 404, 409, 413, 415, 422, 429, status=201,
                            text="Recorded: its seq and log line.",
                            e404="No such open request for this token."),
                    parameters=[seq_path],
                    requestBody=body(answer_in, "The entropy or the dice."),
                )  # fmt: skip
            },
            "/roll": {
                "post": op(
                    "roll", "rolls", "Record a roll",
                    "Scope `roll`: physical dice for a character the token's player plays "
                    "(the GM's: any), checked as `campaign roll` checks them.",
                    answers(roll_out, 400, 404, 409, 413, 415, 422, 429, status=201,
                            text="Recorded: its seq and log line.",
                            e404="No such character (or one the token may not see)."),
                    requestBody=body(roll_in, "The character, the dice, the skill and options."),
                )  # fmt: skip
            },
        },
    }
