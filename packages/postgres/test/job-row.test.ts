/** Reading job rows given as arrays (the hot statements) agrees with reading keyed rows. */
import { describe, expect, it } from 'vitest';
import { jobFromRow, RowReader, summaryFromRow, type JobRow } from '../src/job-row.js';

describe('RowReader', () => {
  const row: JobRow = {
    kind: 'claimed',
    id: '0190a1b2-c3d4-7e5f-8a9b-000000000001',
    state: 'active',
    type: 'email.send',
    queue: 'q',
    args: '[1,{"a":null}]',
    meta: null,
    priority: 2,
    attempt: 1,
    max_attempts: 3,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    result: 'null',
    worker_id: 'w1',
    workflow_id: 'wf',
    doc: { specversion: '1.0', retry: { max_attempts: 3 }, tags: ['t'], custom: 'x' },
  };
  const asArray = (r: JobRow) => ({ columns: Object.keys(r), values: Object.values(r) });

  it('builds the envelope jobFromRow builds, in the same key order', () => {
    const { columns, values } = asArray(row);
    const job = new RowReader(columns).job(values);
    expect(job).toEqual(jobFromRow(row));
    expect(Object.keys(job)).toEqual(Object.keys(jobFromRow(row)));
    expect(job.result).toBeNull();
    expect('meta' in job).toBe(false);
  });

  it('agrees with jobFromRow for a doc of specversion alone, an empty doc and none', () => {
    for (const doc of [{ specversion: '1.0' }, {}, null]) {
      const { columns, values } = asArray({ ...row, doc });
      const job = new RowReader(columns).job(values);
      expect(job).toEqual(jobFromRow({ ...row, doc }));
      expect(Object.keys(job)).toEqual(Object.keys(jobFromRow({ ...row, doc })));
    }
  });

  it('leaves out a column the result lacks rather than reading it from doc', () => {
    const { worker_id: _dropped, ...rest } = row;
    const withDoc = { ...rest, doc: { ...row.doc!, worker_id: 'from-doc' } };
    const { columns, values } = asArray(withDoc);
    expect(new RowReader(columns).job(values)).toEqual(jobFromRow(withDoc));
    expect(new RowReader(columns).job(values).worker_id).toBeUndefined();
  });

  it('builds summaries as summaryFromRow does', () => {
    const { columns, values } = asArray(row);
    expect(new RowReader(columns).summary(values)).toEqual(summaryFromRow(row));
    const plain = { ...row, workflow_id: null };
    expect(new RowReader(Object.keys(plain)).summary(Object.values(plain))).toEqual(summaryFromRow(plain));
  });

  it("takes the id and state given for a row without them (a transition reports its op's)", () => {
    const summary = new RowReader(['type', 'queue', 'attempt', 'workflow_id']).summary(['t', 'q', 2, null], 'job-1', 'completed');
    expect(summary).toEqual({ id: 'job-1', type: 't', queue: 'q', state: 'completed', attempt: 2 });
    expect(Object.keys(summary)).toEqual(['id', 'type', 'queue', 'state', 'attempt']);
  });
});
