import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../../helpers/compose-file.js';

// test/README.md: shared test code lives in test/helpers/, and a test waits for state through its one polling
// helper (`waitUntil`, vi.waitFor underneath) instead of a loop of its own against a deadline.
function listTypeScript(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTypeScript(path);
    return entry.name.endsWith('.ts') ? [relative(PROJECT_DIR, path)] : [];
  });
}

const testFiles = ['test/unit', 'test/integration'].flatMap((dir) => listTypeScript(join(PROJECT_DIR, dir)));

/** A hand-written wait: a loop against a deadline, or a function named like a private polling helper. */
const PRIVATE_WAIT = /while \(Date\.now\(\) <|Date\.now\(\) > deadline|function (?:waitFor|waitUntil|poll)\w*\(/;

describe('test helpers', () => {
  it('live in test/helpers/: test/unit and test/integration hold only test files', () => {
    expect(testFiles.filter((path) => !path.endsWith('.test.ts'))).toEqual([]);
  });

  it('are the one way a test polls: no test writes its own deadline loop', () => {
    const offenders = testFiles.flatMap((path) =>
      readFileSync(join(PROJECT_DIR, path), 'utf8')
        .split('\n')
        .flatMap((line, index) => (PRIVATE_WAIT.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : []))
    );
    expect(offenders).toEqual([]);
  });
});
