/**
 * Two small HTML pages: the API reference (Swagger UI served from its npm package, no CDN, so it works
 * offline) and the root page linking to it when no playground is served.
 */

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
main{max-width:960px;margin:0 auto;padding:24px}h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #dde}
details{background:#fff;border:1px solid #dde;border-radius:6px;margin:6px 0;padding:6px 10px}
summary{cursor:pointer}code,pre{font:13px ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;overflow:auto;border-radius:4px}
.m{display:inline-block;min-width:58px;font-weight:600;font-family:ui-monospace,monospace}
.get{color:#1a7f37}.post{color:#0b5cad}.put,.patch{color:#9a6700}.delete{color:#cf222e}a{color:#0b5cad}`;

/**
 * The API reference page: Swagger UI (from the swagger-ui-dist package, served by the gateway at
 * `assetsPath`) rendering the OpenAPI document at `specUrl`, with "try it out" against this server.
 */
export function referencePage(specUrl: string, assetsPath: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ojskit gateway API reference</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
<style>body{margin:0}.ojs-bar{font:14px system-ui,sans-serif;padding:8px 16px;background:#1d2330;color:#fff}.ojs-bar a{color:#9cc3ff}</style></head>
<body><div class="ojs-bar">ojskit gateway · <a href="/">playground</a> · OpenAPI document: <a href="${specUrl}">${specUrl}</a></div>
<div id="swagger-ui"></div>
<script src="${assetsPath}/swagger-ui-bundle.js"></script><script src="${assetsPath}/init.js"></script></body></html>`;
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
