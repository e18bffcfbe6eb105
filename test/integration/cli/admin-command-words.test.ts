import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { runCli } from '../../helpers/run-cli.js';

const GROUP = '120363000000000001@g.us';

// What a new user's first admin commands answer: refusals on stderr with the prefix, exit 1, and words for what happened.
describe('wa-lake admin commands say what they did and refuse in words', () => {
  const fresh = useFreshLake();
  let dir: string;
  const cli = (args: readonly string[], env: Record<string, string> = {}): ReturnType<typeof runCli> =>
    runCli(args, { env: { DATABASE_URL: fresh.url, ...env } });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-admin-words-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('backfill refuses days before 2009 and in the future, and prints the day this request asked for', async () => {
    const old = await runCli(['backfill', '--group', GROUP, '--since', '1900-01-01']);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('expected a date as YYYY-MM-DD, from 2009-01-01 on');
    const future = await runCli(['backfill', '--group', GROUP, '--since', '2999-01-01']);
    expect(future.code).toBe(1);
    expect(future.stderr).toContain('2999-01-01 is in the future');
    const env = { OUTBOX_PATH: join(dir, 'outbox.sqlite') };
    const first = await runCli(['backfill', '--group', GROUP, '--since', '2024-01-01'], { env });
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['backfill', '--group', GROUP, '--since', '2025-01-01'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('back to 2025-01-01T00:00:00.000Z; the unfinished backfill of the group already');
  }, 60_000);

  it('templates add refuses an empty body and stray braces; approve with nothing to approve fails on stderr', async () => {
    const empty = await cli(['templates', 'add', 'welcome', '--body', '']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toBe('wa-lake: the body is empty; a template needs message text\n');
    const unbalanced = await cli(['templates', 'add', 'welcome', '--body', 'Hi {{ name']);
    expect(unbalanced.code).toBe(1);
    expect(unbalanced.stderr).toContain('wa-lake: the body has a "{{" that is not part of a placeholder');
    const approve = await cli(['templates', 'approve', 'welcome', '--version', '9']);
    expect(approve.code).toBe(1);
    expect(approve.stdout).toBe('');
    expect(approve.stderr).toBe('wa-lake: nothing to approve: no matching draft version of welcome\n');
  }, 60_000);

  it('api-keys revoke with a short prefix fails on stderr with the prefix', async () => {
    const run = await cli(['api-keys', 'revoke', 'wlk_']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('wa-lake: refused: "wlk_" is shorter than');
  }, 60_000);

  it('accounts approve warns about an unknown account; opt-in add names the number it stored', async () => {
    const approve = await cli(['accounts', 'approve', 'nosuch']);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stderr).toContain('warning: no API key names the account nosuch yet');
    const optIn = await cli(['opt-in', 'add', '+55 11 98765-4321']);
    expect(optIn.code, optIn.stderr).toBe(0);
    expect(optIn.stdout).toBe('opted in +5511987654321 (5511987654321@s.whatsapp.net) for account default\n');
  }, 60_000);
});
