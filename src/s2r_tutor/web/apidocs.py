"""`/docs`: the OpenAPI description as one HTML page, with a request and a response example per
route and a small "try it" form (#15).

FastAPI's Swagger UI and ReDoc pages load their scripts from a CDN, which an offline intranet
cannot reach, so they are switched off; this page is rendered on the server from the same
`/openapi.json`. The examples are real: the first /docs request asks the running tutor the example
question (long texts shortened). The try-it forms need the one same-origin script `/docs/try.js`
(no inline script, no CDN); without it the page still reads as plain documentation.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response

_CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2937}
h2{margin-top:2rem;font-size:1.1rem}code,pre{font-family:ui-monospace,monospace;background:#f3f4f6;border-radius:4px}
pre{padding:.75rem;overflow:auto;font-size:13px}.m{font-weight:700;padding:.1rem .4rem;border-radius:4px;background:#dbeafe}
table{border-collapse:collapse}td,th{border:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left}
details.ex{margin:.4rem 0}details.ex summary{cursor:pointer;color:#1d4ed8}
form.try{border:1px solid #e5e7eb;border-radius:6px;padding:.5rem .75rem;margin:.5rem 0;background:#fafafa}
form.try textarea{width:100%;font:13px ui-monospace,monospace;box-sizing:border-box}form.try input{font:inherit}
form.try button{font:inherit;padding:.2rem .9rem;border:0;border-radius:5px;background:#2563eb;color:#fff;cursor:pointer}
.try-out{max-height:24rem}.try-status{font-weight:600;margin-left:.5rem}"""

TRY_JS = Path(__file__).parent / "static" / "apidocs.js"

# The example request per route; the responses are produced by the running tutor from these.
EXAMPLE_QUESTION = "强化学习和 Sim2Real 有什么区别？"
EXAMPLE_REQUESTS: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/api/ask"): {"body": {"question": EXAMPLE_QUESTION,
                                    "history": [{"role": "user", "content": "什么是 Sim2Real？"},
                                                {"role": "assistant", "content": "Sim2Real 是……"}]}},
    ("get", "/api/search"): {"query": {"q": "域随机化", "k": 2}},
    ("get", "/healthz"): {},
}


def _shorten(value: Any, limit: int = 160) -> Any:
    """An example response with long strings cut (the full chunk texts would bury the shape)."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    if isinstance(value, list):
        return [_shorten(v, limit) for v in value[:3]] + (["…"] if len(value) > 3 else [])
    if isinstance(value, dict):
        return {k: _shorten(v, limit) for k, v in value.items()}
    return value


async def example_responses(app: FastAPI) -> dict[tuple[str, str], Any]:
    """What the routes answer to EXAMPLE_REQUESTS, asked of the app's own runtime (once)."""
    cached = getattr(app.state, "docs_examples", None)
    if cached is not None:
        return cached
    from .. import __version__

    runtime = app.state.runtime
    out: dict[tuple[str, str], Any] = {}
    try:
        out[("post", "/api/ask")] = _shorten((await runtime.ask(EXAMPLE_QUESTION, source="warmup")).model_dump(mode="json"))
        hits = await runtime.search("域随机化", 2)
        out[("get", "/api/search")] = _shorten({"hits": [h.model_dump(mode="json") for h in hits]})
    except Exception:  # the docs still show, without live examples, when the tutor cannot answer
        out = {}
    chunks = runtime.tutor.chunks
    out[("get", "/healthz")] = {"status": "ok", "version": __version__, "chunks": len(chunks),
                                "cards": len({c.doc_id for c in chunks})}
    if len(out) == 3:
        app.state.docs_examples = out
    return out


def _json(value: Any) -> str:
    return escape(json.dumps(value, ensure_ascii=False, indent=1))


def _examples_html(method: str, path: str, examples: dict) -> str:
    """The route's example request (as curl) and response, and a try-it form."""
    req = EXAMPLE_REQUESTS.get((method, path))
    if req is None:
        return ""
    rel = path.lstrip("/")
    if "body" in req:
        curl = (f"curl -s -X {method.upper()} http://HOST{path} -H 'Content-Type: application/json' \\\n"
                f"     -d '{json.dumps(req['body'], ensure_ascii=False)}'")
        form = (f'<form class="try" data-method="{method.upper()}" data-path="{escape(rel)}">'
                f'<label>JSON body<textarea name="body" rows="6">{_json(req["body"])}</textarea></label>')
    else:
        query = req.get("query", {})
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        curl = f"curl -s 'http://HOST{path}{'?' + qs if qs else ''}'"
        inputs = " ".join(f'<label>{escape(k)} <input name="{escape(k)}" value="{escape(str(v))}"></label>'
                          for k, v in query.items())
        form = f'<form class="try" data-method="{method.upper()}" data-path="{escape(rel)}">{inputs} '
    form += ('<button type="submit">Send · 发送</button><span class="try-status" aria-live="polite"></span>'
             '<pre class="try-out" hidden></pre></form>')
    out = f"<details class=\"ex\" open><summary>Example request</summary><pre>{escape(curl)}</pre></details>"
    if (method, path) in examples:
        out += (f"<details class=\"ex\"><summary>Example response (200, long texts shortened)</summary>"
                f"<pre>{_json(examples[(method, path)])}</pre></details>")
    return out + "<p><strong>Try it</strong> (sends the request from this page):</p>" + form


def _schema_ref(schema: dict) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"list[{_schema_ref(schema.get('items', {}))}]"
    return schema.get("type", "object")


def render_docs(spec: dict, examples: dict | None = None) -> str:
    out = [f"<h1>{escape(spec['info']['title'])} <small>{escape(spec['info']['version'])}</small></h1>",
           '<p>Machine-readable: <a href="/openapi.json">/openapi.json</a>. '
           "Errors are JSON <code>{\"detail\": \"...\"}</code> with a 4xx status.</p>"]
    for path, ops in spec.get("paths", {}).items():
        for method, op in ops.items():
            out.append(f'<h2><span class="m">{escape(method.upper())}</span> <code>{escape(path)}</code> '
                       f"— {escape(op.get('summary', ''))}</h2>")
            params = op.get("parameters", [])
            if params:
                rows = "".join(
                    f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
                    f"<td>{escape(_schema_ref(p.get('schema', {})))}</td><td>{'yes' if p.get('required') else 'no'}</td>"
                    f"<td>{escape(p.get('description', ''))}</td></tr>"
                    for p in params
                )
                out.append(f"<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th></th></tr>{rows}</table>")
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                out.append(f"<p>JSON body: <code>{escape(_schema_ref(body))}</code></p>")
            codes = ", ".join(
                f"{escape(code)} {escape(_schema_ref(r.get('content', {}).get('application/json', {}).get('schema', {})))}"
                for code, r in op.get("responses", {}).items()
            )
            out.append(f"<p>Responses: {codes}</p>")
            out.append(_examples_html(method, path, examples or {}))
    schemas = spec.get("components", {}).get("schemas", {})
    out.append("<h2>Schemas</h2>")
    for name, schema in schemas.items():
        out.append(f"<h3><code>{escape(name)}</code></h3><pre>{escape(json.dumps(schema, ensure_ascii=False, indent=1))}</pre>")
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(spec['info']['title'])} API</title>"
            f"<style>{_CSS}</style></head><body>{''.join(out)}"
            f'<script src="docs/try.js"></script></body></html>')


def docs_csp(frame_ancestors: str) -> str:
    return "; ".join(["default-src 'none'", "script-src 'self'", "style-src 'unsafe-inline'",
                      "connect-src 'self'", "base-uri 'none'", "form-action 'none'", frame_ancestors])


def install_docs(app: FastAPI, frame_ancestors: str = "frame-ancestors 'self'") -> None:
    headers = {"Content-Security-Policy": docs_csp(frame_ancestors)}

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        return HTMLResponse(render_docs(request.app.openapi(), await example_responses(request.app)), headers=headers)

    @app.get("/docs/try.js", include_in_schema=False)
    async def try_js() -> Response:
        return Response(TRY_JS.read_text(encoding="utf-8"), media_type="text/javascript",
                        headers={"Cache-Control": "no-cache"})
