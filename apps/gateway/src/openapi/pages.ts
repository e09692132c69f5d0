/**
 * Two small self-contained HTML pages: the API reference (renders the OpenAPI document in the browser,
 * no CDN, so it works offline) and the root page linking to it.
 */

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
main{max-width:960px;margin:0 auto;padding:24px}h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #dde}
details{background:#fff;border:1px solid #dde;border-radius:6px;margin:6px 0;padding:6px 10px}
summary{cursor:pointer}code,pre{font:13px ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;overflow:auto;border-radius:4px}
.m{display:inline-block;min-width:58px;font-weight:600;font-family:ui-monospace,monospace}
.get{color:#1a7f37}.post{color:#0b5cad}.put,.patch{color:#9a6700}.delete{color:#cf222e}a{color:#0b5cad}`;

/** The API reference page; `specUrl` is the OpenAPI document it loads. */
export function referencePage(specUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ojskit gateway API reference</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><main><h1>ojskit gateway: API reference</h1><p>OpenAPI document: <a href="${specUrl}">${specUrl}</a></p><div id="ops">Loading…</div></main>
<script type="module">
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (ch) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'})[ch]);
const spec = await (await fetch(${JSON.stringify(specUrl)})).json();
const resolve = (s) => s && s.$ref ? spec.components.schemas[s.$ref.split('/').pop()] : s;
const byTag = new Map();
for (const [path, item] of Object.entries(spec.paths)) for (const [method, op] of Object.entries(item)) {
  const tag = (op.tags || ['Other'])[0]; if (!byTag.has(tag)) byTag.set(tag, []); byTag.get(tag).push({ path, method, op });
}
let html = '';
for (const [tag, ops] of byTag) {
  html += '<h2>' + esc(tag) + '</h2>';
  for (const { path, method, op } of ops) {
    const params = (op.parameters || []).map((p) => '<li><code>' + esc(p.name) + '</code> (' + esc(p.in) + ') ' + esc(p.description || '') + '</li>').join('');
    const body = op.requestBody ? Object.values(op.requestBody.content)[0]?.schema : undefined;
    const responses = Object.entries(op.responses || {}).map(([code, r]) => '<li><code>' + code + '</code> ' + esc(r.description) + '</li>').join('');
    html += '<details><summary><span class="m ' + method + '">' + method.toUpperCase() + '</span> <code>' + esc(path) + '</code> ' + esc(op.summary) + '</summary>'
      + (op.description ? '<p>' + esc(op.description) + '</p>' : '')
      + (params ? '<p>Parameters</p><ul>' + params + '</ul>' : '')
      + (body ? '<p>Body</p><pre>' + esc(JSON.stringify(resolve(body), null, 2)) + '</pre>' : '')
      + '<p>Responses</p><ul>' + responses + '</ul></details>';
  }
}
document.getElementById('ops').innerHTML = html;
</script></body></html>`;
}

/** The root page when no playground is served. */
export function rootPage(version: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ojskit gateway</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><main><h1>ojskit gateway ${version}</h1><p>An Open Job Spec (OJS 1.0) server.</p><ul>
<li><a href="/ojs/v1/docs">API reference</a> · <a href="/ojs/v1/openapi.json">OpenAPI document</a></li>
<li><a href="/ojs/manifest">Manifest</a> · <a href="/ojs/v1/health">Health</a> · <a href="/metrics">Metrics</a></li>
<li><a href="/ojs/v1/events/stream">Live event stream (SSE)</a></li></ul></main></body></html>`;
}
