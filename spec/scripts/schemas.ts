/**
 * JSON Schemas (draft 2020-12) for every zod schema `@ojskit/core/schemas` exports (each export whose name ends in
 * `Schema`), rendered with zod 4's own `z.toJSONSchema` so the files describe exactly what core validates.
 */
import * as core from '@ojskit/core/schemas';
import { z } from 'zod';
import { join } from 'node:path';
import type { GeneratedFile } from './generated-file.js';

/** `EnqueueRequestSchema` → `enqueue-request`. */
export function kebabName(exportName: string): string {
  return exportName
    .replace(/Schema$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/**
 * A schema that carries an OpenAPI component name (zod `.meta({ id })`) renders as `{"$ref":"#/$defs/<id>"}`
 * with itself under `$defs`; the file reads better with the root written out and only the shapes it reuses
 * (other named components, such as `Job`) left in `$defs`.
 */
function inlineRoot(json: Record<string, unknown>): Record<string, unknown> {
  const { $ref, $defs, ...rest } = json as { $ref?: unknown; $defs?: Record<string, unknown> } & Record<string, unknown>;
  const id = typeof $ref === 'string' && $ref.startsWith('#/$defs/') ? $ref.slice('#/$defs/'.length) : undefined;
  if (id === undefined || $defs?.[id] === undefined || JSON.stringify($defs[id]).includes(`"#/$defs/${id}"`)) return json;
  const { [id]: root, ...others } = $defs;
  return { ...rest, ...(root as Record<string, unknown>), ...(Object.keys(others).length > 0 ? { $defs: others } : {}) };
}

function isZodSchema(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

/** One file per exported schema, sorted by name so output is stable. */
export function generateSchemas(dir: string): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  const names = Object.keys(core)
    .filter((name) => name.endsWith('Schema'))
    .sort();
  for (const name of names) {
    const schema = (core as Record<string, unknown>)[name];
    if (!isZodSchema(schema)) {
      // A non-zod export named *Schema would silently lose its file; make the author decide.
      throw new Error(`@ojskit/core/schemas exports '${name}', which is not a zod schema (rename it or make it one).`);
    }
    let json: Record<string, unknown>;
    try {
      // io 'input': these schemas describe what a client may send or read back; none of them transforms.
      json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`Cannot render ${name} as JSON Schema: ${(error as Error).message}`, { cause: error });
    }
    const { $schema, ...rest } = inlineRoot(json);
    const document = { $schema, $id: `${kebabName(name)}.schema.json`, title: name.replace(/Schema$/, ''), ...rest };
    files.push({ path: join(dir, `${kebabName(name)}.schema.json`), contents: `${JSON.stringify(document, null, 2)}\n` });
  }
  return files;
}
