/** @ojskit/gateway: the OJS HTTP protocol (levels 0–4) over any ojskit backend, as a Hono app, a server and a CLI. */
export { createGateway, type Gateway, type GatewayControl } from './gateway.js';
export type { GatewayOptions, GatewayWithBackend, GatewayWithEngine } from './options.js';
export { DEFAULT_BODY_LIMIT } from './options.js';
export type { GatewayEngine, AckManyItem, AckManyResult, AckManyResponse } from './engine-port.js';
export type { RequestLogger, RequestLogLine } from './middleware/request-log.js';
export { jsonStdoutLogger } from './middleware/request-log.js';
export type { EventStreamOptions } from './sse/event-stream.js';
export { DEFAULT_EVENT_STREAM_OPTIONS } from './sse/event-stream.js';
export { OJS_MEDIA_TYPE, OJS_VERSION } from './http/media.js';
export { startGateway, type RunningGateway, type StartOptions } from './server.js';
export { backendScheme, createBackend, registerBackend, type BackendFactory } from './backends/registry.js';
export { GATEWAY_VERSION } from './version.js';
