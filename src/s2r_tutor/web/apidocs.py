"""`/docs`: the OpenAPI description as one self-contained HTML page.

FastAPI's Swagger UI and ReDoc pages load their scripts from a CDN, which an offline intranet
cannot reach, so they are switched off; this page is rendered on the server from the same
`/openapi.json`, with no script at all.
"""

from __future__ import annotations

import json
from html import escape

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse

_CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2937}
h2{margin-top:2rem;font-size:1.1rem}code,pre{font-family:ui-monospace,monospace;background:#f3f4f6;border-radius:4px}
pre{padding:.75rem;overflow:auto;font-size:13px}.m{font-weight:700;padding:.1rem .4rem;border-radius:4px;background:#dbeafe}
table{border-collapse:collapse}td,th{border:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left}"""


def _schema_ref(schema: dict) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"list[{_schema_ref(schema.get('items', {}))}]"
    return schema.get("type", "object")


def render_docs(spec: dict) -> str:
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
    schemas = spec.get("components", {}).get("schemas", {})
    out.append("<h2>Schemas</h2>")
    for name, schema in schemas.items():
        out.append(f"<h3><code>{escape(name)}</code></h3><pre>{escape(json.dumps(schema, ensure_ascii=False, indent=1))}</pre>")
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(spec['info']['title'])} API</title>"
            f"<style>{_CSS}</style></head><body>{''.join(out)}</body></html>")


def install_docs(app: FastAPI) -> None:
    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        return HTMLResponse(render_docs(request.app.openapi()))
