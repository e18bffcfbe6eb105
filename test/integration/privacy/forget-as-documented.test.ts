import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { cliEnvironmentLines } from '../../../cli/local-stack/cli-environment-lines.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import {
  dumpLakeText,
  messageBody,
  metadataBody,
  newGroupJid,
  newMember,
  type Member,
} from '../../helpers/lake-privacy-fixtures.js';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));

/** Runs `wa-lake forget …` in a shell that got only the pasted banner `lines`, in `cwd`, as a user would. */
function forgetWithBanner(
  lines: readonly string[],
  participant: string,
  cwd: string,
  extraArgs = ''
): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `${lines.join('\n')}\nexec "$NODE" "$CLI" forget --participant "$PARTICIPANT" ${extraArgs}`;
  const env = { PATH: process.env['PATH'] ?? '', NODE: process.execPath, CLI, PARTICIPANT: participant };
  return new Promise((resolve) => {
    execFile('sh', ['-c', script], { env, cwd, timeout: 90_000 }, (error, stdout, stderr) => {
      const code = (error as { code?: number } | null)?.code;
      resolve({ code: typeof code === 'number' ? code : error ? -1 : 0, stdout, stderr });
    });
  });
}

// ADR 0017: run without the banner's OUTBOX_PATH, forget misses the outbox and says INCOMPLETE (exit 1); the
// prescribed rerun by phone number, with the whole banner, still finds the LID although the alias is deleted.
describe('wa-lake forget as documented (banner environment, then the rerun)', () => {
  const fresh = useFreshLake();
  let temporal: DevTemporal;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-forget-banner-'));
    temporal = await startDevTemporal();
  });
  afterAll(async () => {
    await temporal?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is INCOMPLETE without the outbox, and the rerun by phone number erases the LID from the outbox too', async () => {
    const group = newGroupJid();
    const member = newMember();
    const other = newMember();
    for (const event of [metadataBody(group, [member, other], new Date().toISOString())]) {
      expect(await fresh.lake.store(randomUUID(), event)).toBe('stored');
    }
    // Undelivered in the outbox: a message that names the member by LID only.
    const lidOnly: Member = { ...member, phoneJid: member.lid, phone: 'someone' };
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    // What wa-lake dev writes beside the outbox: forget reads the erasure key there (ADR 0027).
    writeFileSync(join(dataDir, 'erasure-key'), TEST_ERASURE_KEY);
    const outboxPath = join(dataDir, 'outbox.sqlite');
    const outbox = OutboxStore.open({ path: outboxPath });
    outbox.enqueueBatch(
      [
        {
          eventId: randomUUID(),
          type: 'messages.upsert',
          chatJid: group,
          body: messageBody(group, lidOnly, 'hi', new Date()),
        },
        {
          eventId: randomUUID(),
          type: 'messages.upsert',
          chatJid: group,
          body: messageBody(group, other, 'kept', new Date()),
        },
      ],
      Date.now()
    );
    outbox.close();
    const banner = cliEnvironmentLines({
      databaseUrl: fresh.url,
      temporalAddress: temporal.server.address,
      payloadKeyFile: null,
      erasureKeyFile: join(dataDir, 'erasure-key'),
      outboxPath,
      collectorStatusPath: join(dataDir, 'collector-status.json'),
      ingestUrl: 'http://127.0.0.1:1',
      codec: null,
    });
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);

    // The banner without OUTBOX_PATH: the default .data/outbox.sqlite is not there.
    const first = await forgetWithBanner(
      banner.filter((line) => !line.startsWith('export OUTBOX_PATH=')),
      `+${member.phone}`,
      elsewhere
    );
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('wa-lake forget: INCOMPLETE, the outbox was NOT erased');
    expect(first.stderr).toContain('collector outbox: no file at .data/outbox.sqlite');
    expect(first.stderr).toContain('rerun the same forget');

    // The rerun with every line of the banner, by the phone number the alias tied to the LID.
    const second = await forgetWithBanner(banner, `+${member.phone}`, elsewhere);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('(continues an incomplete erasure of this member)');
    expect(second.stdout).toContain('outbox: 1 row rewritten');

    const digits = [member.phone, member.lid.split('@')[0] ?? ''];
    const reopened = OutboxStore.open({ path: outboxPath });
    const bodies = reopened
      .listDue(10, Date.now() + 1)
      .map((row) => row.body)
      .join('\n');
    reopened.close();
    for (const value of digits) expect(bodies).not.toContain(value);
    expect(bodies).toContain('kept');
    const lake = await dumpLakeText(fresh.lake.pool);
    for (const value of digits) expect(lake).not.toContain(value);
    const pending = await fresh.lake.pool.query('SELECT 1 FROM whatsapp_pending_erasures');
    expect(pending.rowCount).toBe(0);
  });

  // A participant no store ever held (a typo) exited 0 with all zeros.
  it('refuses a participant no store holds (exit 1, no run recorded) unless --force', async () => {
    const dataDir = join(dir, 'unseen');
    mkdirSync(dataDir);
    // What wa-lake dev writes beside the outbox: forget reads the erasure key there (ADR 0027).
    writeFileSync(join(dataDir, 'erasure-key'), TEST_ERASURE_KEY);
    const outboxPath = join(dataDir, 'outbox.sqlite');
    OutboxStore.open({ path: outboxPath }).close();
    const banner = cliEnvironmentLines({
      databaseUrl: fresh.url,
      temporalAddress: temporal.server.address,
      payloadKeyFile: null,
      erasureKeyFile: join(dataDir, 'erasure-key'),
      outboxPath,
      collectorStatusPath: join(dataDir, 'collector-status.json'),
      ingestUrl: 'http://127.0.0.1:1',
      codec: null,
    });
    const countRuns = async (): Promise<number> =>
      (await fresh.lake.pool.query('SELECT 1 FROM whatsapp_erasure_runs')).rowCount ?? 0;
    const countTombstones = async (): Promise<number> =>
      (await fresh.lake.pool.query('SELECT 1 FROM whatsapp_erasure_tombstones')).rowCount ?? 0;
    const runsBefore = await countRuns();
    const tombstonesBefore = await countTombstones();
    const run = await forgetWithBanner(banner, '+5511900000777', dataDir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'wa-lake forget: refused: nothing of +5511900000777 was found in the lake, the send tables, the outbox or ' +
        'the dead letters'
    );
    expect(run.stderr).toContain('check the identifier');
    expect(run.stderr).toContain('pass --force');
    expect(await countRuns()).toBe(runsBefore);

    // A refused run commits nothing: no tombstone, so the member's first message keeps its sender and text.
    const unseenLid: Member = { ...newMember(), phone: '5511900000778', phoneJid: '5511900000778@s.whatsapp.net' };
    const byLid = await forgetWithBanner(banner, unseenLid.lid, dataDir);
    expect(byLid.code).toBe(1);
    expect(byLid.stderr).toContain(`refused: nothing of ${unseenLid.lid} was found`);
    expect(await countTombstones()).toBe(tombstonesBefore);
    const group = newGroupJid();
    expect(await fresh.lake.store(randomUUID(), messageBody(group, unseenLid, 'first words', new Date()))).toBe(
      'stored'
    );
    const lake = await dumpLakeText(fresh.lake.pool);
    expect(lake).toContain('first words');
    expect(lake).toContain(unseenLid.lid);
    expect(lake).toContain('Name of 5511900000778');

    // --force records the run and writes the tombstone: the way to erase someone before their first message.
    const forced = await forgetWithBanner(banner, '+5511900000777', dataDir, '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('outbox: 0 rows rewritten');
    expect(forced.stdout).toContain(
      "  - files wa-lake itself wrote earlier (wa-lake export --participant output, the demo's"
    );
    expect(await countRuns()).toBe(runsBefore + 1);
    expect(await countTombstones()).toBe(tombstonesBefore + 1);
    const later = { ...newMember(), phone: '5511900000777', phoneJid: '5511900000777@s.whatsapp.net' };
    expect(await fresh.lake.store(randomUUID(), messageBody(group, later, 'after force', new Date()))).toBe('stored');
    expect(await dumpLakeText(fresh.lake.pool)).not.toContain('after force');
  });
});
