/**
 * @ojskit/contract: the suites every ojskit backend passes: the backend contract (through the engine API, also
 * over HTTP), the driver-level suite (core's `Driver` directly) and the SDK's worker and client contracts.
 * @example
 * runBackendContract({
 *   name: 'memory',
 *   create: async () => {
 *     const clock = new ManualClock();
 *     const driver = new MemoryDriver();
 *     const engine = new Engine({ driver, clock });
 *     return { api: engine, clock, driver, maintenance: () => engine.runMaintenance(), close: () => engine.close() };
 *   },
 * });
 */
import { registerCases, type CaseRegistration } from './harness.js';
import type { BackendContractOptions } from './subject.js';
import { registerAckNackCases } from './cases/ack-nack.js';
import { registerAdminCases } from './cases/admin.js';
import { registerAgeBoostCases } from './cases/age-boost.js';
import { registerBackpressureCases } from './cases/backpressure.js';
import { registerBulkCases } from './cases/bulk.js';
import { registerCancelCases } from './cases/cancel.js';
import { registerConcurrencyCases } from './cases/concurrency.js';
import { registerCronCases } from './cases/cron.js';
import { registerDeadLetterCases } from './cases/dead-letter.js';
import { registerEnqueueCases } from './cases/enqueue.js';
import { registerEnvelopeCases } from './cases/envelope.js';
import { registerEventCases } from './cases/events.js';
import { registerFetchCases } from './cases/fetch.js';
import { registerHistoryCases } from './cases/history.js';
import { registerModelCases } from './cases/model.js';
import { registerProgressCases } from './cases/progress.js';
import { registerQueueCases } from './cases/queues.js';
import { registerRateLimitCases } from './cases/rate-limits.js';
import { registerRetentionCases } from './cases/retention.js';
import { registerRetryCases } from './cases/retry.js';
import { registerSchedulingCases } from './cases/scheduling.js';
import { registerSystemCases } from './cases/system.js';
import { registerTransitionCases } from './cases/transitions.js';
import { registerUniqueCases } from './cases/unique.js';
import { registerVisibilityCases } from './cases/visibility.js';
import { registerWorkflowCases } from './cases/workflows.js';

export type { BackendContractOptions, ContractSubject } from './subject.js';
export { HISTORY_CASE_IDS, skipHistoryCases } from './cases/history.js';
export type { CaseContext } from './context.js';
export type { DispatchLogControl } from './dispatch-log.js';
export { runDriverContract, DRIVER_CASE_REGISTRATIONS } from './driver/index.js';
export type { DriverContractOptions, DriverSubject } from './driver/subject.js';
export {
  runWorkerContract,
  WORKER_CONTRACT_SERVICES,
  type WorkerContractCase,
  type WorkerContractOptions,
  type WorkerContractSubject,
} from './sdk/worker-contract.js';
export { runClientContract, type ClientContractCase, type ClientContractOptions } from './sdk/client-contract.js';
export { countingTransport, type TransportCalls } from './sdk/counting-transport.js';

/** Every case file, in the order the report lists them. */
export const CASE_REGISTRATIONS: readonly CaseRegistration[] = [
  registerSystemCases,
  registerTransitionCases,
  registerEnvelopeCases,
  registerEnqueueCases,
  registerFetchCases,
  registerAckNackCases,
  registerRetryCases,
  registerVisibilityCases,
  registerProgressCases,
  registerCancelCases,
  registerDeadLetterCases,
  registerQueueCases,
  registerSchedulingCases,
  registerUniqueCases,
  registerCronCases,
  registerWorkflowCases,
  registerEventCases,
  registerHistoryCases,
  registerConcurrencyCases,
  registerAdminCases,
  registerBackpressureCases,
  registerBulkCases,
  registerRateLimitCases,
  registerAgeBoostCases,
  registerRetentionCases,
  registerModelCases,
];

/**
 * Registers the contract suite (vitest `describe`/`it` blocks) for one backend. Call it at the top level of a
 * test file. Every case gets a fresh subject from `create`; skipped cases need a written reason.
 */
export function runBackendContract(options: BackendContractOptions): void {
  registerCases(options, CASE_REGISTRATIONS);
}
