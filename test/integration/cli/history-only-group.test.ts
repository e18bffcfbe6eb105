import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackfillStore } from '../../../collector/index.js';
import { filterEvent } from '../../../collector/edge-filter.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../../../collector/prepare-item.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { runCli } from '../../helpers/run-cli.js';

const ACCOUNT = '5500000000009:12@s.whatsapp.net';
const GROUP = '120363000000000001@g.us';
const UNKNOWN = '120363000000000099@g.us';
const MESSAGES = 120;

const fresh = useFreshLake();
const temp = createTempDir('history-only-group');
afterAll(() => temp.cleanup());

/** One history push of `MESSAGES` messages of GROUP, stored as the collector's pipeline prepares them. */
async function storeHistoryOnlyGroup(): Promise<void> {
  const firstMs = Date.parse('2026-03-01T09:00:00Z');
  const push = {
    chats: [],
    contacts: [],
    syncType: 3,
    progress: 100,
    messages: Array.from({ length: MESSAGES }, (_, i) => ({
      key: {
        remoteJid: GROUP,
        fromMe: false,
        id: `HIST${String(i).padStart(5, '0')}`,
        participant: `10000000000${i % 7}@lid`,
      },
      messageTimestamp: (firstMs + i * 600_000) / 1000,
      message: { conversation: `history ${i}` },
    })),
  };
  const capturedAt = '2026-03-05T10:00:00.000Z';
  for (const kept of filterEvent('messaging-history.set', push).kept) {
    const { row } = prepareItem(kept, capturedAt, ACCOUNT, DEFAULT_BODY_LIMITS, { source: kept.source ?? 'live' });
    await fresh.lake.store(row.eventId, row.body);
  }
}

describe('a group the lake knows only from history messages (ADR 0029: one "is this group in the lake" rule)', () => {
  it('is listed by wa-lake coverage, all groups and --group, as the report lists it', async () => {
    await storeHistoryOnlyGroup();
    const env = { DATABASE_URL: fresh.url };

    const report = await runCli(['report', '--json'], { env });
    expect(report.code).toBe(0);
    const groups = (JSON.parse(report.stdout) as { groups: Array<{ groupJid: string; messages: number }> }).groups;
    expect(groups).toEqual([expect.objectContaining({ groupJid: GROUP, messages: MESSAGES })]);

    const all = await runCli(['coverage'], { env });
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    expect(all.stdout).not.toContain('no groups in the lake');
    expect(all.stdout).toMatch(
      new RegExp(`^${GROUP.replace('.', '\\.')}  2026-03-01 … \\d{4}-\\d{2}-\\d{2}: 0 fully observed`)
    );

    const one = await runCli(['coverage', '--group', GROUP], { env });
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain('no data for');
    expect(one.stdout.split('\n')[0]).toBe(all.stdout.split('\n')[0]);
    const json = JSON.parse((await runCli(['coverage', '--group', GROUP, '--json'], { env })).stdout) as Array<{
      groupJid: string;
      days: Array<{ day: string; coverage: string }>;
    }>;
    expect(json.map((group) => group.groupJid)).toEqual([GROUP]);
    expect(json[0]?.days[0]).toEqual({ day: '2026-03-01', coverage: 'none' });

    // The unknown group is still refused, with the report's words.
    const unknown = await runCli(['coverage', '--group', UNKNOWN], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`group ${UNKNOWN} is not in the lake`);
    // The advice names the listing, not the `coverage --group` that was just run.
    expect(unknown.stderr).toContain('against the groups `wa-lake coverage` lists when run without --group');
  });

  it('wa-lake backfill refuses a group the lake has never seen (exit 1, nothing queued) and queues a known one', async () => {
    const outboxPath = join(temp.dir, 'outbox.sqlite');
    const env = { DATABASE_URL: fresh.url, OUTBOX_PATH: outboxPath, AUTH_DIR: join(temp.dir, 'auth') };

    const refused = await runCli(['backfill', '--group', UNKNOWN, '--since', '2026-01-01'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`group ${UNKNOWN} is not in the lake`);
    expect(refused.stderr).toContain('nothing was queued');
    expect(existsSync(outboxPath)).toBe(false);

    const queued = await runCli(['backfill', '--group', GROUP, '--since', '2026-01-01'], { env });
    expect(queued.stderr).toBe('');
    expect(queued.code).toBe(0);
    expect(queued.stdout).toContain(`backfill of ${GROUP} queued`);
    const store = BackfillStore.open({ path: outboxPath });
    try {
      expect(store.list().map((backfill) => [backfill.groupJid, backfill.state])).toEqual([[GROUP, 'waiting']]);
    } finally {
      store.close();
    }
  });
});
