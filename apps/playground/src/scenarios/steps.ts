/** What a scenario gets to work with, and the waits it uses (polling the public API, so any server works). */
import type { HttpTransport } from '@ojskit/client';
import type { Job, JobState, WorkflowDescription } from '@ojskit/core';

export interface ScenarioContext {
  readonly api: HttpTransport;
  /** A queue name unique to this run, so runs (and other users of the server) never mix. */
  readonly queue: string;
  /** Adds a line to the scenario's narration. */
  log(line: string): void;
  /** Jobs and workflows the run made, for the page to link to. */
  noteJob(id: string): void;
  noteWorkflow(id: string): void;
  readonly signal: AbortSignal;
}

/** A one-click scripted scenario, with the edges of the lifecycle it exercises. */
export interface Scenario {
  readonly id: string;
  readonly title: string;
  /** The edges it walks, as "from → to (trigger)" sentences: narrated before it starts. */
  readonly narration: string;
  run(ctx: ScenarioContext): Promise<string>;
}

/** Polls a job until it is in one of `states`; returns it. */
export async function waitForState(ctx: ScenarioContext, id: string, states: readonly JobState[], timeoutMs = 15_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { job } = await ctx.api.getJob(id);
    if (states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} is ${job.state}, not ${states.join('/')} after ${timeoutMs} ms`);
    await pause(ctx, 100);
  }
}

/** Polls until `check` returns a value (not undefined). */
export async function waitUntil<T>(ctx: ScenarioContext, what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(ctx, 100);
  }
}

export async function waitForWorkflow(ctx: ScenarioContext, id: string, timeoutMs = 15_000): Promise<WorkflowDescription> {
  return waitUntil(
    ctx,
    `workflow ${id} to end`,
    async () => {
      const { workflow } = await ctx.api.getWorkflow(id);
      return workflow.state === 'running' ? undefined : workflow;
    },
    timeoutMs,
  );
}

export function pause(ctx: ScenarioContext, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ctx.signal.aborted) return reject(new Error('stopped'));
    const timer = setTimeout(resolve, ms);
    ctx.signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('stopped'));
      },
      { once: true },
    );
  });
}
