/** What every route module receives. */
import type { GatewayEngine } from '../engine-port.js';
import type { EventStreamOptions } from '../sse/event-stream.js';
import type { StreamRegistry } from '../sse/stream-registry.js';
import type { RouteSink } from './define.js';

export interface RouteDeps extends RouteSink {
  engine: GatewayEngine;
  streams: StreamRegistry;
  streamOptions: EventStreamOptions;
  /** True once a graceful shutdown began: FETCH hands out no more work, `/ready` reports not ready. */
  isDraining(): boolean;
}
