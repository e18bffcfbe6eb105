import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INGEST_ERROR_CODES } from '../../../ingest-api/errors.js';
import {
  isProblemCode,
  PROBLEM_CATALOGUE,
  renderProblemIndex,
  renderProblemPage,
} from '../../../ingest-api/problem-catalogue.js';
import { problemType } from '../../../ingest-api/problem-details.js';

// The table of ingest-api/README.md, row by row: `| \`CODE\` | status | when |`.
function readmeRows(): Array<{ code: string; status: number; when: string }> {
  const readme = readFileSync(new URL('../../../ingest-api/README.md', import.meta.url), 'utf8');
  return [...readme.matchAll(/^\| `(WA_ERR_[A-Z_]+)`\s*\| (\d+)\s*\| (.*?)\s*\|$/gm)].map((m) => ({
    code: m[1] ?? '',
    status: Number(m[2]),
    when: m[3] ?? '',
  }));
}

describe('PROBLEM_CATALOGUE', () => {
  it('is what the README table documents: every code, its status and when it is answered', () => {
    const fromCode = Object.entries(PROBLEM_CATALOGUE).map(([code, entry]) => ({
      code,
      status: INGEST_ERROR_CODES[code as keyof typeof INGEST_ERROR_CODES],
      when: entry.when,
    }));
    expect(readmeRows()).toEqual(fromCode);
  });

  it('renders a page per code that names its type URI, status and the draft for the Idempotency-Key errors', () => {
    const page = renderProblemPage('WA_ERR_IDEMPOTENCY_MISMATCH');
    expect(page).toMatch(/^# Idempotency mismatch\n/);
    expect(page).toContain('- Type: `/api/v1/problems/WA_ERR_IDEMPOTENCY_MISMATCH`');
    expect(page).toContain('- Status: 422');
    expect(page).toContain('draft-ietf-httpapi-idempotency-key-header');
    expect(renderProblemPage('WA_ERR_INTERNAL')).not.toContain('Source:');
  });

  it('lists every code in the index, linked to its type URI', () => {
    const index = renderProblemIndex();
    for (const code of Object.keys(INGEST_ERROR_CODES)) expect(index).toContain(`(${problemType(code)})`);
  });

  it('knows only its own codes, not inherited object keys', () => {
    expect(isProblemCode('WA_ERR_QUOTA_EXCEEDED')).toBe(true);
    expect(isProblemCode('toString')).toBe(false);
    expect(isProblemCode('__proto__')).toBe(false);
  });
});
