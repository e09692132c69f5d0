import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EFFECTS, STATE_SETS } from '@ojskit/core/driver';
import { sqlFile, versionedMigrations } from '../src/sql-files.js';
import { renderSql, templateValues } from '../src/sql-template.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('SQL rendered from core', () => {
  // A database records a migration as applied by version and never runs it again: one that shipped must
  // render to the very text it had, whatever now fills its placeholders (this is the text of 0001 as released).
  it('renders the shipped init migration byte for byte as released', () => {
    const init = versionedMigrations().find((m) => m.version === '0001_init')!;
    expect(sha256(renderSql(init.text, templateValues('ojskit')))).toBe('f1847df4f3d97160b461d4eddcfa6bb5d52823428b8a9124f1e3a5e51d904ffb');
  });

  it('renders the statements that move jobs by themselves (no unknown placeholder)', () => {
    for (const name of ['jobClaim', 'jobPromote', 'jobExpire', 'jobListOverdue', 'jobHeartbeat']) {
      expect(() => renderSql(sqlFile(name), templateValues('ojskit')), name).not.toThrow();
    }
  });

  it('writes each column of an effect the claim makes', () => {
    const claim = renderSql(sqlFile('jobClaim'), templateValues('ojskit'));
    expect(claim).toContain(`state = '${EFFECTS.claim.to}'`);
    expect(claim).toContain('attempt = j.attempt + 1');
    expect(claim).toContain('next_attempt_at = NULL');
    expect(claim).toContain('x_visible_until = $4::float8 + COALESCE($6::float8, j.x_visibility_ms)');
    // An expired job the claim meets moves to jobs_finished, stamped by the expiry effect.
    expect(claim).toContain(`'${EFFECTS.expire.to}', g.type`);
    expect(claim).toContain(`d.state IN (${STATE_SETS.due.map((s) => `'${s}'`).join(', ')})`);
  });

  it('keeps the part of an #if block its value chooses, and refuses a value other than true or false', () => {
    const text = 'a{{#if on}} b {{x}}{{else}} c{{/if}} d{{#if off}} e{{/if}}';
    expect(renderSql(text, { on: 'true', off: 'false', x: 'X' })).toBe('a b X d');
    expect(renderSql(text, { on: 'false', off: 'false' })).toBe('a c d');
    expect(() => renderSql(text, { on: 'yes', off: 'false', x: 'X' })).toThrow(/needs true or false/);
  });
});
