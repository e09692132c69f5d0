/** Workflows: chain with parent_results, group, batch callbacks fired exactly once, failure rules, cancel. */
import { expect } from 'vitest';
import type { Job, WorkflowResponse } from '@ojskit/core';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';

const ONE_ATTEMPT = { retry: { max_attempts: 1 } };

/** Claims every available job of `queue` (up to 50). */
async function claimAll(t: CaseContext, queue: string): Promise<Job[]> {
  return (await t.api.fetch({ queues: [queue], count: 50 })).jobs;
}

function expectMirror(res: WorkflowResponse): void {
  const { id, type, name, state, metadata } = res.workflow;
  expect({ id: res.id, type: res.type, name: res.name, state: res.state, metadata: res.metadata }).toEqual({ id, type, name, state, metadata });
}

async function chain(t: CaseContext, queue: string, steps: number, extraOptions: Record<string, unknown> = {}): Promise<WorkflowResponse> {
  return t.api.createWorkflow({
    type: 'chain',
    name: 'etl',
    options: { queue, ...extraOptions },
    steps: Array.from({ length: steps }, (_, i) => ({ type: `step.s${i}`, args: [i] })),
  });
}

export function registerWorkflowCases(suite: Suite): void {
  suite.group('workflows', () => {
    suite.test('workflows.chain', 'a chain runs step by step, passing parent_results in order, then completes', async (t) => {
      const queue = t.queue();
      const created = await chain(t, queue, 3);
      expectMirror(created);
      expect(created.workflow).toMatchObject({ type: 'chain', name: 'etl', state: 'running', steps_total: 3, steps_completed: 0, created_at: t.iso() });
      const results: unknown[] = [{ rows: 10 }, undefined, 'final'];
      for (let i = 0; i < 3; i++) {
        const jobs = await claimAll(t, queue);
        expect(
          jobs.map((j) => j.type),
          `only step ${i} is enqueued`,
        ).toEqual([`step.s${i}`]);
        const job = jobs[0]!;
        expect(job.workflow_id).toBe(created.id);
        if (i === 0) expect(job.parent_results ?? []).toEqual([]);
        if (i === 1) expect(job.parent_results).toEqual([{ rows: 10 }]);
        if (i === 2) expect(job.parent_results).toEqual([{ rows: 10 }, null]);
        await t.api.ack(results[i] === undefined ? { job_id: job.id } : { job_id: job.id, result: results[i] });
        if (i < 2) expect((await t.api.getWorkflow(created.id)).workflow).toMatchObject({ state: 'running', steps_completed: i + 1 });
      }
      const done = await t.api.getWorkflow(created.id);
      expectMirror(done);
      expect(done.workflow).toMatchObject({ state: 'completed', steps_completed: 3 });
      expect(done.workflow.completed_at).toBeDefined();
    });

    suite.test('workflows.chain-failure', 'a step that fails for good fails the chain; later steps never run', async (t) => {
      const queue = t.queue();
      const created = await chain(t, queue, 3, ONE_ATTEMPT);
      const [first] = await claimAll(t, queue);
      await t.api.ack({ job_id: first!.id, result: 1 });
      const [second] = await claimAll(t, queue);
      await t.api.nack({ job_id: second!.id, error: { code: 'e', message: 'broken' } });
      const wf = await t.api.getWorkflow(created.id);
      expect(wf.workflow.state).toBe('failed');
      await t.advance(3_600_000);
      expect(await claimAll(t, queue)).toEqual([]);
    });

    suite.test('workflows.chain-retry-is-not-failure', 'a retryable step does not fail the chain', async (t) => {
      const queue = t.queue();
      const created = await chain(t, queue, 2, { retry: { max_attempts: 2, initial_interval: 'PT1S', jitter: false } });
      const [first] = await claimAll(t, queue);
      await t.api.nack({ job_id: first!.id, error: { code: 'e', message: 'flaky' } });
      expect((await t.api.getWorkflow(created.id)).workflow.state).toBe('running');
      await t.advance(1_000);
      const [again] = await claimAll(t, queue);
      expect(again!.id).toBe(first!.id);
      await t.api.ack({ job_id: again!.id });
      const [next] = await claimAll(t, queue);
      expect(next!.type).toBe('step.s1');
    });

    suite.test('workflows.group', 'a group enqueues every job at once; a failure never cancels siblings; ends failed', async (t) => {
      const queue = t.queue();
      const created = await t.api.createWorkflow({
        type: 'group',
        options: { queue, ...ONE_ATTEMPT },
        jobs: [0, 1, 2].map((i) => ({ type: 'grp.job', args: [i] })),
      });
      expect(created.workflow).toMatchObject({ type: 'group', state: 'running', jobs_total: 3, jobs_completed: 0 });
      const jobs = await claimAll(t, queue);
      expect(jobs.map((j) => j.args[0]).sort()).toEqual([0, 1, 2]);
      await t.api.nack({ job_id: jobs[0]!.id, error: { code: 'e', message: 'x' } });
      await t.expectState(jobs[1]!.id, 'active');
      expect((await t.api.getWorkflow(created.id)).workflow.state).toBe('running');
      await t.api.ack({ job_id: jobs[1]!.id });
      await t.api.ack({ job_id: jobs[2]!.id });
      expect((await t.api.getWorkflow(created.id)).workflow).toMatchObject({ state: 'failed', jobs_completed: 2, jobs_failed: 1 });
    });

    suite.test('workflows.group-completes', 'a group whose jobs all succeed completes', async (t) => {
      const queue = t.queue();
      const created = await t.api.createWorkflow({
        type: 'group',
        options: { queue },
        jobs: [
          { type: 'grp.a', args: [] },
          { type: 'grp.b', args: [] },
        ],
      });
      for (const job of await claimAll(t, queue)) await t.api.ack({ job_id: job.id });
      expect((await t.api.getWorkflow(created.id)).workflow).toMatchObject({ state: 'completed', jobs_completed: 2 });
    });

    const batchBody = (queue: string, callbacksQueue: string, count: number) => ({
      type: 'batch',
      name: 'import',
      options: { queue, ...ONE_ATTEMPT },
      jobs: Array.from({ length: count }, (_, i) => ({ type: 'batch.item', args: [i] })),
      callbacks: {
        on_complete: { type: 'batch.complete', args: [], options: { queue: callbacksQueue } },
        on_success: { type: 'batch.success', args: [], options: { queue: callbacksQueue } },
        on_failure: { type: 'batch.failure', args: [], options: { queue: callbacksQueue } },
      },
    });

    suite.test('workflows.batch-success', 'a batch fires on_complete and on_success once when every member succeeds', async (t) => {
      const [queue, callbacks] = [t.queue(), t.queue()];
      const created = await t.api.createWorkflow(batchBody(queue, callbacks, 3));
      const jobs = await claimAll(t, queue);
      for (const job of jobs.slice(0, 2)) await t.api.ack({ job_id: job.id, result: job.args[0] });
      expect(await claimAll(t, callbacks), 'no callback before every member is terminal').toEqual([]);
      await t.api.ack({ job_id: jobs[2]!.id, result: jobs[2]!.args[0] });
      const fired = await claimAll(t, callbacks);
      expect(fired.map((j) => j.type).sort()).toEqual(['batch.complete', 'batch.success']);
      expect((await t.api.getWorkflow(created.id)).workflow.state).toBe('completed');
    });

    suite.test('workflows.batch-failure', 'a batch with a failed member fires on_complete and on_failure once and ends failed', async (t) => {
      const [queue, callbacks] = [t.queue(), t.queue()];
      const created = await t.api.createWorkflow(batchBody(queue, callbacks, 3));
      const jobs = await claimAll(t, queue);
      await t.api.nack({ job_id: jobs[0]!.id, error: { code: 'e', message: 'x' } });
      await t.api.cancelJob(jobs[1]!.id);
      await t.api.ack({ job_id: jobs[2]!.id });
      const fired = await claimAll(t, callbacks);
      expect(fired.map((j) => j.type).sort()).toEqual(['batch.complete', 'batch.failure']);
      expect((await t.api.getWorkflow(created.id)).workflow.state).toBe('failed');
    });

    suite.test('workflows.batch-callback-results', 'batch callbacks carry parent_results of every member by index', async (t) => {
      const [queue, callbacks] = [t.queue(), t.queue()];
      await t.api.createWorkflow(batchBody(queue, callbacks, 3));
      for (const job of await claimAll(t, queue)) await t.api.ack({ job_id: job.id, result: `r${String(job.args[0])}` });
      for (const cb of await claimAll(t, callbacks)) expect(cb.parent_results).toEqual(['r0', 'r1', 'r2']);
    });

    suite.test('workflows.batch-concurrent-acks', 'concurrent ACKs of the last members still fire each callback exactly once', async (t) => {
      const [queue, callbacks] = [t.queue(), t.queue()];
      const created = await t.api.createWorkflow(batchBody(queue, callbacks, 8));
      const jobs = await claimAll(t, queue);
      expect(jobs).toHaveLength(8);
      await Promise.all(jobs.map((job) => t.api.ack({ job_id: job.id })));
      await t.maintenance();
      const fired = await claimAll(t, callbacks);
      expect(fired.map((j) => j.type).sort()).toEqual(['batch.complete', 'batch.success']);
      expect((await t.api.getWorkflow(created.id)).workflow).toMatchObject({ state: 'completed', jobs_completed: 8 });
    });

    suite.test('workflows.cancel', 'cancel stops every non-terminal member (active too), enqueues nothing further, fires no callback', async (t) => {
      const [queue, callbacks] = [t.queue(), t.queue()];
      const created = await t.api.createWorkflow(batchBody(queue, callbacks, 3));
      const [running] = (await t.api.fetch({ queues: [queue], count: 1 })).jobs;
      const res = await t.api.cancelWorkflow(created.id);
      expect(res.workflow).toMatchObject({ id: created.id, state: 'cancelled' });
      expect(res.workflow.cancelled_at).toBeDefined();
      await t.expectState(running!.id, 'cancelled');
      await expectOjsError(t.api.ack({ job_id: running!.id }), { code: 'conflict' });
      expect(await claimAll(t, queue)).toEqual([]);
      await t.maintenance();
      expect(await claimAll(t, callbacks)).toEqual([]);
      expect((await t.api.getWorkflow(created.id)).workflow.state).toBe('cancelled');
      await expectOjsError(t.api.cancelWorkflow(created.id), { code: 'conflict' });
    });

    suite.test('workflows.cancel-chain', 'a cancelled chain never enqueues its later steps', async (t) => {
      const queue = t.queue();
      const created = await chain(t, queue, 3);
      const [first] = await claimAll(t, queue);
      await t.api.cancelWorkflow(created.id);
      await expectOjsError(t.api.ack({ job_id: first!.id, result: 1 }), { code: 'conflict' });
      await t.advance(60_000);
      expect(await claimAll(t, queue)).toEqual([]);
    });

    suite.test('workflows.terminal-cancel', 'cancelling a completed workflow → 409 conflict; unknown id → 404', async (t) => {
      const queue = t.queue();
      const created = await chain(t, queue, 1);
      const [only] = await claimAll(t, queue);
      await t.api.ack({ job_id: only!.id });
      await expectOjsError(t.api.cancelWorkflow(created.id), { code: 'conflict' });
      await expectOjsError(t.api.getWorkflow('01970000-0000-7000-8000-000000000000'), { code: 'not_found' });
      await expectOjsError(t.api.cancelWorkflow('01970000-0000-7000-8000-000000000000'), { code: 'not_found' });
    });

    suite.test('workflows.validation', 'empty lists, unknown types, batches without callbacks and bad items → 400', async (t) => {
      const item = { type: 'wf.item', args: [] };
      const bodies: unknown[] = [
        { type: 'chain', steps: [] },
        { type: 'group', jobs: [] },
        { type: 'pipeline', steps: [item] },
        { type: 'batch', jobs: [item] },
        { type: 'chain', steps: [{ type: 'Bad Type', args: [] }] },
        { type: 'group', jobs: [{ type: 'wf.item', args: 'no' }] },
        null,
      ];
      for (const body of bodies) await expectOjsError(t.api.createWorkflow(body), { code: 'invalid_request' });
    });

    suite.test('workflows.item-queue', "an item's options.queue wins over the workflow's", async (t) => {
      const [queue, special] = [t.queue(), t.queue()];
      await t.api.createWorkflow({
        type: 'group',
        options: { queue },
        jobs: [
          { type: 'wf.a', args: [] },
          { type: 'wf.b', args: [], options: { queue: special } },
        ],
      });
      expect((await claimAll(t, queue)).map((j) => j.type)).toEqual(['wf.a']);
      expect((await claimAll(t, special)).map((j) => j.type)).toEqual(['wf.b']);
    });
  });
}
