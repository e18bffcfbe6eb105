import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironmentLines, type StackEnvironment } from '../../../../cli/local-stack/cli-environment-lines.js';
import { pgpassLine, writePgpassFile } from '../../../../cli/local-stack/pgpass-file.js';

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

  it('gives the stack’s own PostgreSQL password to DATABASE_URL and psql from files, never printed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-pgpass-'));
    dirs.push(dir);
    const url = 'postgres://postgres:0a1b2c3d@127.0.0.1:54329/wa_lake';
    const passwordFile = join(dir, 'postgres-password');
    writeFileSync(passwordFile, '0a1b2c3d\n');
    const previous = process.umask(0o022);
    const pgpassFile = join(dir, 'pgpass');
    try {
      writePgpassFile(pgpassFile, url);
    } finally {
      process.umask(previous);
    }
    const lines = cliEnvironmentLines({ ...STACK, databaseUrl: url, postgresFiles: { passwordFile, pgpassFile } });

    expect(lines.join('\n')).not.toContain('0a1b2c3d');
    expect(statSync(pgpassFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(pgpassFile, 'utf8')).toBe('127.0.0.1:54329:*:postgres:0a1b2c3d\n');
    const names = ['DATABASE_URL', 'PGPASSFILE', 'PGHOST', 'PGPORT', 'PGUSER', 'PGDATABASE'];
    const printed = execFileSync(
      'sh',
      ['-c', `${lines.join('\n')}\nprintf '%s|' ${names.map((name) => `"$${name}"`).join(' ')}`],
      { encoding: 'utf8' }
    );
    // wa-lake commands keep the whole URL; a bare `psql` finds the server in PG* and the password in PGPASSFILE.
    expect(printed.split('|')).toEqual([url, pgpassFile, '127.0.0.1', '54329', 'postgres', 'wa_lake', '']);
  });

  it('escapes the separators of a libpq password file', () => {
    expect(pgpassLine('postgres://us%3Aer:p%5Cw%3Ax@db.example:6543/lake')).toBe(
      'db.example:6543:*:us\\:er:p\\\\w\\:x'
    );
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
