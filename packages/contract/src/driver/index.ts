/**
 * The driver-level suite: every primitive of core's `Driver`, atomicity under races, and the transition table
 * enforced where the data lives, run directly against a driver (no engine in between).
 */
import type { DriverCaseRegistration } from './harness.js';
import { registerDriverCases } from './harness.js';
import type { DriverContractOptions } from './subject.js';
import { registerClaimCases } from './cases/claim.js';
import { registerDispatchedClaimCases } from './cases/dispatched-claim.js';
import { registerInsertCases } from './cases/insert.js';
import { registerMaintenanceCases } from './cases/maintenance.js';
import { registerRaceCases } from './cases/races.js';
import { registerRecordCases } from './cases/records.js';
import { registerTableCases } from './cases/table.js';
import { registerTransitionCases } from './cases/transition.js';
import { registerCompleteCases } from './cases/complete.js';
import { registerFailCases } from './cases/fail.js';

/** Every driver case file, in the order the report lists them. */
export const DRIVER_CASE_REGISTRATIONS: readonly DriverCaseRegistration[] = [
  registerInsertCases,
  registerClaimCases,
  registerDispatchedClaimCases,
  registerCompleteCases,
  registerFailCases,
  registerTransitionCases,
  registerTableCases,
  registerMaintenanceCases,
  registerRecordCases,
  registerRaceCases,
];

/**
 * Registers the driver suite (vitest `describe`/`it` blocks) for one driver. Call it at the top level of a
 * test file. Every case gets a fresh subject from `create`; skipped cases need a written reason.
 * @example
 * runDriverContract({ name: 'memory', create: async () => { const driver = new MemoryDriver(); return { driver, close: () => driver.close() }; } });
 */
export function runDriverContract(options: DriverContractOptions): void {
  registerDriverCases(options, DRIVER_CASE_REGISTRATIONS);
}
