import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../../helpers/compose-file.js';

// Integration tests build Temporal workers, clients and environments only through test/helpers/, which
// give each the test payload codec (architecture.md §14: tests run with encryption on, as production
// should) and install the silent Runtime logger first, so the SDK's INFO lines ("Worker state changed")
// do not flood test output. A test that builds its own would do neither.
const CONSTRUCTIONS = /Worker\.create\(|new Client\(|NativeConnection\.connect\(|TestWorkflowEnvironment\.create/;
/** Files allowed to build their own, and why. */
const ALLOWED: ReadonlyMap<string, string> = new Map([
  [
    'test/integration/privacy/payload-encryption.test.ts',
    'its clear client shows what the server stores without the codec',
  ],
  ['test/integration/security/forged-starts.test.ts', 'its forger is an attacker: a client without the codec key'],
  [
    'test/integration/security/bare-signals.test.ts',
    'its forger is an attacker: a client without the codec key, signalling with no argument',
  ],
  [
    'test/integration/security/squatted-event-id.test.ts',
    'its squatter is an attacker: a client without the codec key',
  ],
  [
    'test/integration/security/bound-signals.test.ts',
    'its forger is an attacker: a client without the codec key, copying encrypted arguments and inputs',
  ],
  [
    'test/integration/security/squatted-ids.test.ts',
    'its squatter is an attacker: a client without the codec key, taking deterministic ids first',
  ],
]);

/** A test environment built outside the one harness (`useTemporalTestbed`, test/helpers/temporal-testbed.ts). */
const OWN_ENVIRONMENT = /createTimeSkippingEnv\(|createLocalEnv\(/;
/** Files allowed to build their own environment, and why. */
const OWN_ENVIRONMENT_ALLOWED: ReadonlyMap<string, string> = new Map([
  [
    'test/integration/delivery/replay-histories.test.ts',
    'it needs an environment only to record histories (RECORD_HISTORIES), never in a normal run',
  ],
]);

function listTypeScript(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTypeScript(path);
    return entry.name.endsWith('.ts') ? [relative(PROJECT_DIR, path)] : [];
  });
}

describe('Temporal construction in integration tests', () => {
  it('goes through test/helpers/ (payload codec and silent SDK logger), except where a file says why not', () => {
    const offenders = listTypeScript(join(PROJECT_DIR, 'test/integration')).flatMap((path) =>
      readFileSync(join(PROJECT_DIR, path), 'utf8')
        .split('\n')
        .flatMap((line, index) => (CONSTRUCTIONS.test(line) && !ALLOWED.has(path) ? [`${path}:${index + 1}`] : []))
    );
    expect(offenders).toEqual([]);
  });

  it('gets its environment, bundle and per-test cleanup from the one harness, except where a file says why not', () => {
    const offenders = listTypeScript(join(PROJECT_DIR, 'test/integration')).flatMap((path) =>
      readFileSync(join(PROJECT_DIR, path), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          OWN_ENVIRONMENT.test(line) && !OWN_ENVIRONMENT_ALLOWED.has(path) ? [`${path}:${index + 1}`] : []
        )
    );
    expect(offenders).toEqual([]);
  });
});
