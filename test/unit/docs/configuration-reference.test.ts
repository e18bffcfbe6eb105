import { describe, expect, it } from 'vitest';
import { collectorEnvSchema } from '../../../collector/config.js';
import { ingestEnvSchema } from '../../../ingest-api/config.js';
import { workerEnvSchema } from '../../../worker/config.js';
import { envExampleKeys, markdownCodeNames, readProjectFile } from '../../helpers/compose-file.js';

// Keeps docs/configuration.md and .env.example in step with the zod schemas (architecture.md §11).
const SCHEMAS = { collector: collectorEnvSchema, worker: workerEnvSchema, 'ingest-api': ingestEnvSchema };

function schemaKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  if (!shape) throw new Error('expected a zod object schema with a shape');
  return Object.keys(shape);
}

const documented = markdownCodeNames(readProjectFile('docs/configuration.md'));
const envKeys = envExampleKeys(readProjectFile('.env.example'));

describe('configuration reference', () => {
  for (const [process, schema] of Object.entries(SCHEMAS)) {
    it(`documents every ${process} key in docs/configuration.md`, () => {
      const keys = schemaKeys(schema);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => !documented.has(key))).toEqual([]);
    });

    it(`lists every ${process} key in .env.example`, () => {
      expect(schemaKeys(schema).filter((key) => !envKeys.has(key))).toEqual([]);
    });
  }

  it('describes every key of .env.example in docs/configuration.md', () => {
    expect([...envKeys].filter((key) => !documented.has(key))).toEqual([]);
  });

  it('documents no key twice in .env.example', () => {
    const lines = readProjectFile('.env.example')
      .split('\n')
      .map((line) => /^#?\s?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((key): key is string => key !== undefined);
    expect(lines.filter((key, index) => lines.indexOf(key) !== index)).toEqual([]);
  });

  it('shows the schema default in docs/configuration.md for every key that has one', () => {
    const page = readProjectFile('docs/configuration.md');
    const required = {
      WEBHOOK_URL: 'http://127.0.0.1:8080/x',
      WHATSAPP_WEBHOOK_SECRET: 'a'.repeat(32),
      DATABASE_URL: 'postgres://x',
    };
    for (const schema of Object.values(SCHEMAS)) {
      const parsed = (schema as { parse(input: unknown): Record<string, unknown> }).parse(required);
      for (const key of schemaKeys(schema)) {
        const value = parsed[key];
        if (typeof value !== 'number' && typeof value !== 'string') continue;
        if (key in required) continue;
        const row = page.split('\n').find((line) => new RegExp(`^\\| \`${key}\` +\\|`).test(line));
        expect(row, key).toBeDefined();
        expect(row, key).toContain(`\`${String(value)}\``);
      }
    }
  });
});
