import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirLayout, writeDevStackFile } from '../../../../cli/local-stack/data-dir.js';
import { DataDirNotFoundError, environmentOfDataDir } from '../../../../cli/local-stack/data-dir-environment.js';

describe('status --data-dir reads a wa-lake dev stack from its folder (ADR 0017)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-status-dir-'));
    dirs.push(dir);
    return dir;
  };

  it('takes the folder’s outbox, status file, recorded Temporal address and payload keys', () => {
    const dir = folder();
    writeDevStackFile(dataDirLayout(dir).stackFile, { temporalAddress: '127.0.0.1:17233' });
    writeFileSync(join(dir, 'payload-encryption-keys'), 'dev1:a2V5\n');
    const env = environmentOfDataDir(dir, { OUTBOX_PATH: '/elsewhere/outbox.sqlite', LOG_LEVEL: 'warn' });
    expect(env).toEqual({
      OUTBOX_PATH: join(dir, 'outbox.sqlite'),
      COLLECTOR_STATUS_PATH: join(dir, 'collector-status.json'),
      TEMPORAL_ADDRESS: '127.0.0.1:17233',
      PAYLOAD_ENCRYPTION_KEYS: 'dev1:a2V5',
      LOG_LEVEL: 'warn',
    });
  });

  it('keeps a Temporal address and keys the environment sets; without a record the default stays', () => {
    const dir = folder();
    writeDevStackFile(dataDirLayout(dir).stackFile, { temporalAddress: '127.0.0.1:17233' });
    const env = environmentOfDataDir(dir, { TEMPORAL_ADDRESS: 'temporal:7233', PAYLOAD_ENCRYPTION_KEYS: 'k:x' });
    expect(env).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', PAYLOAD_ENCRYPTION_KEYS: 'k:x' });
    const outboxOnly = folder();
    writeFileSync(dataDirLayout(outboxOnly).outboxPath, '');
    const bare = environmentOfDataDir(outboxOnly, {});
    expect(bare['TEMPORAL_ADDRESS']).toBeUndefined();
    expect(bare['PAYLOAD_ENCRYPTION_KEYS']).toBeUndefined();
  });

  it('refuses a folder that does not exist, creating nothing', () => {
    const missing = join(folder(), 'nope');
    expect(() => environmentOfDataDir(missing, {})).toThrow(DataDirNotFoundError);
    expect(() => environmentOfDataDir(missing, {})).toThrow(`no data folder at ${missing} (--data-dir)`);
  });

  it('refuses a folder that holds no outbox, status file or stack record (e.g. /etc), before reading anything', () => {
    const unrelated = folder();
    writeFileSync(join(unrelated, 'passwd'), 'root:x:0:0::/root:/bin/sh\n');
    expect(() => environmentOfDataDir(unrelated, {})).toThrow(DataDirNotFoundError);
    expect(() => environmentOfDataDir(unrelated, {})).toThrow(
      `no outbox, collector status file or stack record in ${unrelated} (--data-dir)`
    );
  });
});
