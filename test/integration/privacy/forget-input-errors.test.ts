import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { runCli } from '../../helpers/run-cli.js';

// Bad input to `wa-lake forget` stops it with an error naming the variable or flag, before anything is opened.
describe('wa-lake forget input errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wa-lake-forget-input-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = (erasureKey: string): Record<string, string> => ({
    DATABASE_URL: 'postgres://wa:wa@127.0.0.1:1/unused',
    OUTBOX_PATH: join(dir, 'outbox.sqlite'),
    AUTH_DIR: join(dir, 'auth'),
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    ERASURE_KEY: erasureKey,
  });

  it('names ERASURE_KEY and its rule when the key is too short, in plain text', async () => {
    const run = await runCli(['forget', '--participant', '999999999999@lid'], { env: env('short') });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ERASURE_KEY: must be at least 32 characters');
    expect(run.stderr).not.toContain('too_small');
    expect(run.stdout).toBe('');
  }, 60_000);

  it('lists name:NAME among the accepted forms when --participant is none of them', async () => {
    const run = await runCli(['forget', '--participant', 'name:'], { env: env(TEST_ERASURE_KEY) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '--participant must be a LID (…@lid), a phone JID (…@s.whatsapp.net), a phone number or ' +
        'name:NAME (a chat-export sender), got "name:"'
    );
  }, 60_000);

  it('says in --help every store the README lists', async () => {
    const run = await runCli(['forget', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(
      'the lake, the projections, the send tables, the outbox and the dead letters'
    );
  }, 60_000);
});
