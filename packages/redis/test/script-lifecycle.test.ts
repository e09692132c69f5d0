import { describe, expect, it } from 'vitest';
import { EFFECTS, STATE_ROLES, STATE_SETS } from '@ojskit/core/driver';
import { renderLifecycle, SCRIPT_NAMES, scriptSource } from '../src/script-source.js';

describe('scripts render core lifecycle data at build time', () => {
  it('turns STATE, STATE_IN, EFFECT_SET and EFFECT_DEL into literals', () => {
    expect(renderLifecycle('if v.state == STATE.claimed then')).toBe(`if v.state == "${STATE_ROLES.claimed}" then`);
    expect(renderLifecycle('if STATE_IN.timedOnInsert(job.state) then')).toBe(
      `if (${STATE_SETS.timedOnInsert.map((s) => `job.state == "${s}"`).join(' or ')}) then`,
    );
    expect(renderLifecycle('{ EFFECT_SET.expire }')).toBe(
      `{ 'state', "${EFFECTS.expire.to}", ${EFFECTS.expire.stamp.map((f) => `"${f}", nowIso`).join(', ')}, ${EFFECTS.expire.xStamp.map((f) => `"@${f}", now`).join(', ')} }`,
    );
    expect(renderLifecycle('{ EFFECT_DEL.cancel }')).toBe(`{ "worker_id", "next_attempt_at", "@visibleUntil", "@timeoutAt", "@claimVisibilityMs", "@dueAt" }`);
  });

  it('fails the build on a name core does not define, or an effect a script cannot write alone', () => {
    expect(() => renderLifecycle('STATE.running')).toThrow(/STATE\.running/);
    expect(() => renderLifecycle('STATE_IN.nowhere(x)')).toThrow(/STATE_IN\.nowhere/);
    expect(() => renderLifecycle('{ EFFECT_SET.claim }')).toThrow(/assigns fields/);
  });

  it('leaves no build-time name in any script', () => {
    for (const name of SCRIPT_NAMES) expect(scriptSource(name), name).not.toMatch(/\b(STATE|STATE_IN|EFFECT_SET|EFFECT_DEL)\./);
  });
});
