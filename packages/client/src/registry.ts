/**
 * Typing jobs by type name. Declare a registry once and pass it to `Client` and `Worker`:
 * the compiler then checks every enqueue's args and every handler's args and result.
 * @example
 * interface Jobs {
 *   'email.send': [to: string, subject: string];            // args only
 *   'report.build': { args: [id: number]; result: string };  // args and result
 * }
 * const client = new Client<Jobs>(api);
 */

/** What a registry says about one job type: its args tuple, or `{ args, result }`. */
export type JobDefinition = unknown[] | { args: unknown[]; result?: unknown };

/**
 * Job type → its definition. Written as a self-bounded mapped type so that plain `interface` declarations
 * (which have no index signature) qualify.
 */
export type JobRegistry<R = Record<string, JobDefinition>> = { [K in keyof R]: JobDefinition };

/** The registry used when none is given: any type, any args, unknown results. */
export type AnyJobs = Record<string, unknown[]>;

/** The job type names of a registry. */
export type JobTypeOf<R> = keyof R & string;

/** The args tuple of a job type. */
export type ArgsOf<R, K extends keyof R> = R[K] extends unknown[] ? R[K] : R[K] extends { args: infer A extends unknown[] } ? A : unknown[];

/** The result a job type's handler returns (`unknown` when the registry does not say). */
export type ResultOf<R, K extends keyof R> = R[K] extends { result: infer X } ? X : unknown;
