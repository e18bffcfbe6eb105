import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironmentLines, type StackEnvironment } from '../../../../cli/local-stack/cli-environment-lines.js';

const STACK: StackEnvironment = {
  databaseUrl: 'postgres://x@h/db',
  temporalAddress: 'h:1',
  payloadKeyFile: null,
  outboxPath: '/data/outbox.sqlite',
  collectorStatusPath: '/data/collector-status.json',
  ingestUrl: 'http://127.0.0.1:39001',
  codec: null,
};

describe('cliEnvironmentLines (wa-lake dev banner: the CLI in another terminal)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('exports everything the other commands need, so that a shell gets exactly those values, secrets unprinted', () => {
    const dir = mkdtempSync(join(tmpdir(), "wa-lake it's "));
    dirs.push(dir);
    const keyFile = join(dir, 'payload-encryption-keys');
    writeFileSync(keyFile, 'dev1:c2VjcmV0\n');
    const tokenFile = join(dir, 'codec-server-token');
    writeFileSync(tokenFile, 'tok3n\n');
    const lines = cliEnvironmentLines({
      databaseUrl: 'postgres://postgres:wa-lake-embedded@127.0.0.1:54329/wa_lake',
      temporalAddress: '127.0.0.1:7233',
      payloadKeyFile: keyFile,
      outboxPath: join(dir, 'outbox.sqlite'),
      collectorStatusPath: join(dir, 'collector-status.json'),
      ingestUrl: 'http://127.0.0.1:39001',
      codec: { url: 'http://127.0.0.1:39002', tokenFile },
    });
    expect(lines.join('\n')).not.toContain('c2VjcmV0');
    expect(lines.join('\n')).not.toContain('tok3n');
    const names = [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'PAYLOAD_ENCRYPTION_KEYS',
      'OUTBOX_PATH',
      'COLLECTOR_STATUS_PATH',
      'SEND_API_URL',
      'TEMPORAL_CODEC_ENDPOINT',
      'TEMPORAL_CODEC_AUTH',
    ];
    const printed = execFileSync(
      'sh',
      ['-c', `${lines.join('\n')}\nprintf '%s|' ${names.map((name) => `"$${name}"`).join(' ')}`],
      { encoding: 'utf8' }
    );
    expect(printed.split('|')).toEqual([
      'postgres://postgres:wa-lake-embedded@127.0.0.1:54329/wa_lake',
      '127.0.0.1:7233',
      'dev1:c2VjcmV0',
      join(dir, 'outbox.sqlite'),
      join(dir, 'collector-status.json'),
      'http://127.0.0.1:39001',
      'http://127.0.0.1:39002',
      'Bearer tok3n',
      '',
    ]);
  });

  it('prints no key line when the keys came from the environment, and no codec line when headless', () => {
    expect(cliEnvironmentLines(STACK)).toEqual([
      "export DATABASE_URL='postgres://x@h/db'",
      "export TEMPORAL_ADDRESS='h:1'",
      "export OUTBOX_PATH='/data/outbox.sqlite'",
      "export COLLECTOR_STATUS_PATH='/data/collector-status.json'",
      "export SEND_API_URL='http://127.0.0.1:39001'",
    ]);
  });

  it('reads the codec token from CODEC_SERVER_TOKEN when the environment set it', () => {
    const lines = cliEnvironmentLines({ ...STACK, codec: { url: 'http://127.0.0.1:1', tokenFile: null } });
    expect(lines.slice(-2)).toEqual([
      "export TEMPORAL_CODEC_ENDPOINT='http://127.0.0.1:1'",
      'export TEMPORAL_CODEC_AUTH="Bearer ${CODEC_SERVER_TOKEN}"',
    ]);
  });
});
