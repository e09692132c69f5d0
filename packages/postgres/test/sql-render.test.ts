import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EFFECTS, STATE_SETS } from '@ojskit/core';
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
    expect(claim).toContain(`state = CASE WHEN p.expired THEN '${EFFECTS.expire.to}' ELSE '${EFFECTS.claim.to}' END`);
    expect(claim).toContain('attempt = CASE WHEN p.expired THEN j.attempt ELSE j.attempt + 1 END');
    expect(claim).toContain('next_attempt_at = CASE WHEN p.expired THEN j.next_attempt_at ELSE NULL END');
    expect(claim).toContain('x_visible_until = CASE WHEN p.expired THEN j.x_visible_until ELSE $4::float8 + COALESCE($6::float8, j.x_visibility_ms) END');
    expect(claim).toContain(`d.state IN (${STATE_SETS.due.map((s) => `'${s}'`).join(', ')})`);
  });
});
