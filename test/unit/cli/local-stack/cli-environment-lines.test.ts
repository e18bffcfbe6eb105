import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironmentLines } from '../../../../cli/local-stack/cli-environment-lines.js';

describe('cliEnvironmentLines (wa-lake dev banner: the CLI in another terminal)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('exports the lake, Temporal and the generated payload key so that a shell gets exactly those values', () => {
    const dir = mkdtempSync(join(tmpdir(), "wa-lake it's "));
    dirs.push(dir);
    const keyFile = join(dir, 'payload-encryption-keys');
    writeFileSync(keyFile, 'dev1:c2VjcmV0\n');
    const lines = cliEnvironmentLines({
      databaseUrl: 'postgres://postgres:wa-lake-embedded@127.0.0.1:54329/wa_lake',
      temporalAddress: '127.0.0.1:7233',
      payloadKeyFile: keyFile,
    });
    expect(lines.join('\n')).not.toContain('c2VjcmV0');
    const printed = execFileSync(
      'sh',
      ['-c', `${lines.join('\n')}\nprintf '%s|%s|%s' "$DATABASE_URL" "$TEMPORAL_ADDRESS" "$PAYLOAD_ENCRYPTION_KEYS"`],
      { encoding: 'utf8' }
    );
    expect(printed).toBe('postgres://postgres:wa-lake-embedded@127.0.0.1:54329/wa_lake|127.0.0.1:7233|dev1:c2VjcmV0');
  });

  it('prints no key line when the keys came from the environment', () => {
    const lines = cliEnvironmentLines({
      databaseUrl: 'postgres://x@h/db',
      temporalAddress: 'h:1',
      payloadKeyFile: null,
    });
    expect(lines).toEqual(["export DATABASE_URL='postgres://x@h/db'", "export TEMPORAL_ADDRESS='h:1'"]);
  });
});
