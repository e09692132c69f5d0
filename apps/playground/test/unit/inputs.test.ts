/** What users type: args JSON and server URLs. */
import { describe, expect, it } from 'vitest';
import { normaliseUrl } from '../../src/server/servers.js';
import { parseArgs } from '../../src/ui/parse-args.js';

describe('parseArgs', () => {
  it('accepts a JSON array and explains anything else', () => {
    expect(parseArgs('[1, "two", {"x": null}]')).toEqual({ args: [1, 'two', { x: null }] });
    expect(parseArgs('{"a": 1}')).toEqual({ error: 'Args must be a JSON array, e.g. [1, "two"].' });
    expect('error' in parseArgs('[1,')).toBe(true);
    expect((parseArgs('[1,') as { error: string }).error).toMatch(/^Not valid JSON/);
  });
});

describe('normaliseUrl', () => {
  it('adds a scheme and drops trailing slashes and the /ojs/v1 suffix, keeping a path prefix', () => {
    expect(normaliseUrl('localhost:8081')).toBe('http://localhost:8081');
    expect(normaliseUrl(' https://jobs.example.com/ojs/v1/ ')).toBe('https://jobs.example.com');
    expect(normaliseUrl('http://host/prefix/ojs')).toBe('http://host/prefix');
    expect(() => normaliseUrl('http://')).toThrow();
  });
});
