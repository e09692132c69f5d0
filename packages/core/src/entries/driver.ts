/**
 * @ojskit/core/driver: the seam a storage adapter implements (`Driver`, its records and capabilities, the
 * event transport), the helpers every adapter shares (insert planning, event packing, listener presence) and
 * the lifecycle data an adapter reads instead of naming states.
 */
export * from './lifecycle.js';
export * from '../driver/driver.js';
export * from '../driver/records.js';
export * from '../driver/insert-plan.js';
export * from '../driver/primitive-ops.js';
export type { EventTransport } from '../events/transport.js';
export * from '../events/packing.js';
export * from '../events/listener-presence.js';
/** Events of the moves a dispatch log makes outside the engine. */
export * from '../engine/dispatch-events.js';
/** Where a transport's time-ordered log holds an event (Last-Event-ID replay). */
export { eventIdMs } from '../formats/ids.js';
export * from '../driver/primitive-ops.js';
export * from '../history/job-history.js';
export * from '../driver/admin.js';
export * from '../driver/depth-bounds.js';
export * from '../rate-limit/policy.js';
export * from '../rate-limit/rule.js';
export * from '../priority/age-boost.js';
