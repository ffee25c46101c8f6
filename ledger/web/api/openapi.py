"""The OpenAPI 3.1 description of ``/api/v1`` (#29), generated from the msgspec types of
:mod:`ledger.web.api.types` (:func:`msgspec.json.schema_components`), never written by hand."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.web.api import types as t

REF = "#/components/schemas/{name}"


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document: every path, its parameters, bodies and problem answers."""
    kinds = [t.CampaignInfo, list[t.Character], t.Sheet, t.LogPage, t.RollIn, t.RollOut,
             t.Checkpoint, t.Problem, list[t.OpenRequest], t.AnswerIn, t.Proof, t.RequestIn]  # fmt: skip
    schemas, components = msgspec.json.schema_components(kinds, ref_template=REF)
    (
        campaign,
        chars,
        sheet,
        page,
        roll_in,
        roll_out,
        cp,
        prob,
        reqs,
        answer_in,
        proof,
        request_in,
    ) = schemas
    problem = {"application/problem+json": {"schema": prob}}

    def answers(ok: dict[str, Any], *codes: int) -> dict[str, Any]:
        out = {"200": {"description": "OK", "content": _json(ok)}}
        for code in (401, 403, *codes):
            out[str(code)] = {"description": "a problem (RFC 9457)", "content": problem}
        return out

    def query(name: str, text: str) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": False, "description": text,
                "schema": {"type": "integer", "minimum": 0, "maximum": t.MAX_QUERY_INT}}  # fmt: skip

    roll_answers = answers(roll_out, 400, 404, 409, 413, 422, 429)  # 409: another entry first
    roll_answers["201"] = roll_answers.pop("200")
    roll_answers["201"]["description"] = "recorded"
    answer_answers = answers(roll_out, 400, 404, 409, 422, 429)
    answer_answers["201"] = answer_answers.pop("200")
    answer_answers["201"]["description"] = "recorded"
    request_answers = answers(roll_out, 400, 404, 422)
    request_answers["201"] = request_answers.pop("200")
    request_answers["201"]["description"] = "recorded"
    # the request's seq is what its answer names (OpenAPI links: schemathesis's stateful runs
    # follow them, and so can a client generator)
    request_answers["201"]["links"] = {
        "answer": {"operationId": "answer", "parameters": {"seq": "$response.body#/seq"}},
        "proof": {"operationId": "inclusion", "parameters": {"seq": "$response.body#/seq"}},
    }
    roll_answers["201"]["links"] = {
        "proof": {"operationId": "inclusion", "parameters": {"seq": "$response.body#/seq"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Campaign Ledger API", "version": "1"},
        "servers": [{"url": "/api/v1"}],
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/campaign": {"get": {"operationId": "campaign", "responses": answers(campaign)}},
            "/characters": {"get": {"operationId": "characters", "responses": answers(chars)}},
            "/sheet/{character}": {
                "get": {
                    "operationId": "sheet",
                    "parameters": [
                        {
                            "name": "character",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },  # fmt: skip
                        query("as_of", "the sheet as of this seq (default: the head)"),
                    ],
                    "responses": answers(sheet, 400, 404),
                }
            },
            "/log": {
                "get": {
                    "operationId": "log",
                    "parameters": [
                        query("since", "entries after this seq (default 0)"),
                        query("limit", "at most this many entries (default 100, at most 500)"),
                    ],
                    "responses": {
                        **answers(page, 400),
                        "304": {"description": "not modified (If-None-Match)"},
                    },
                }
            },
            "/export.ndjson": {
                "get": {
                    "operationId": "export",
                    "responses": {
                        **answers({"type": "string"}),
                        "200": {
                            "description": "the export in the caller's view",
                            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                        },
                    },
                }
            },
            "/checkpoint": {"get": {"operationId": "checkpoint", "responses": answers(cp, 404)}},
            "/requests": {"get": {"operationId": "requests", "responses": answers(reqs)}},
            "/request": {
                "post": {
                    "operationId": "request",
                    "requestBody": {"required": True, "content": _json(request_in)},
                    "responses": request_answers,
                }
            },
            "/answer/{seq}": {
                "post": {
                    "operationId": "answer",
                    "parameters": [
                        {
                            "name": "seq",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer", "minimum": 1,
                                       "maximum": t.MAX_QUERY_INT},
                        },  # fmt: skip
                    ],
                    "requestBody": {"required": True, "content": _json(answer_in)},
                    "responses": answer_answers,
                }
            },
            "/proof/consistency": {
                "get": {
                    "operationId": "consistency",
                    "parameters": [query("old", "the size of the older tree")],
                    "responses": answers(proof, 400, 404),
                }
            },
            "/proof/inclusion": {
                "get": {
                    "operationId": "inclusion",
                    "parameters": [query("seq", "the event to prove")],
                    "responses": answers(proof, 400, 404),
                }
            },
            "/roll": {
                "post": {
                    "operationId": "roll",
                    "requestBody": {"required": True, "content": _json(roll_in)},
                    "responses": roll_answers,
                }
            },
        },
    }
