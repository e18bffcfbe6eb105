import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackfillStore } from '../../../collector/index.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';
import { runCli, UNREACHABLE_TEMPORAL_ENV } from '../../helpers/run-cli.js';

const GROUP = '120363000000000001@g.us';
const OTHER = '120363000000000002@g.us';
const PUSHES = 4;
const PER_PUSH = 250;

const temp = createTempDir('replay-history');
afterAll(() => temp.cleanup());

// Unreachable Temporal: every replayed event stays pending in the outbox, as during a long import.
const env = {
  OUTBOX_PATH: join(temp.dir, 'outbox.sqlite'),
  AUTH_DIR: join(temp.dir, 'auth'),
  ...UNREACHABLE_TEMPORAL_ENV,
  LOG_FORMAT: 'json',
  LOG_LEVEL: 'info',
};

/** A capture of `PUSHES` RECENT history pushes of `PER_PUSH` group messages each, 25 % … 100 % per WhatsApp. */
function writeHistoryCapture(path: string): void {
  const firstMs = Date.parse('2026-03-01T09:00:00Z');
  const lines = Array.from({ length: PUSHES }, (_, push) => ({
    captured_at: new Date(Date.parse('2026-03-05T10:00:00Z') + push * 1000).toISOString(),
    event: 'messaging-history.set',
    data: {
      chats: [],
      contacts: [],
      syncType: 3,
      progress: ((push + 1) * 100) / PUSHES,
      messages: Array.from({ length: PER_PUSH }, (_, i) => {
        const n = push * PER_PUSH + i;
        return {
          key: {
            remoteJid: GROUP,
            fromMe: false,
            id: `HIST${String(n).padStart(5, '0')}`,
            participant: '100000000000001@lid',
          },
          messageTimestamp: (firstMs + n * 60_000) / 1000,
          message: { conversation: `history ${n}` },
        };
      }),
    },
  }));
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
}

interface StatusJson {
  session: { mode: string | null } | null;
  historyImport: { syncType: string; items: number; pushes: number; percent: number; isDone: boolean } | null;
  outbox: { pendingHistory: number } | null;
  backfills: Array<{ groupJid: string; state: string; isOpen: boolean; since: string; pages: number }> | null;
}

const readStatus = async (): Promise<{ json: StatusJson; text: string }> => {
  const [json, text] = await Promise.all([runCli(['status', '--json'], { env }), runCli(['status'], { env })]);
  return { json: JSON.parse(json.stdout) as StatusJson, text: text.stdout };
};

describe('a replayed history import is followed as a live one (ADR 0016 "Progress while it runs")', () => {
  it('logs history import progress per push and wa-lake status shows the import and its queued events', async () => {
    const capture = join(temp.dir, 'history.jsonl');
    writeHistoryCapture(capture);

    const replay = await runCli(['replay', capture, '--wait-ms', '0'], { env, timeoutMs: 120_000 });
    expect(replay.code).toBe(0);
    const progress = replay.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record['msg'] === 'history import progress');
    expect(progress.map((record) => [record['items'], record['percent'], record['syncType']])).toEqual([
      [250, 25, 3],
      [500, 50, 3],
      [750, 75, 3],
      [1000, 100, 3],
    ]);

    const { json, text } = await readStatus();
    expect(json.session?.mode).toBe('replay');
    expect(json.outbox?.pendingHistory).toBe(PUSHES * PER_PUSH);
    expect(json.historyImport).toMatchObject({
      syncType: 'RECENT',
      items: 1000,
      pushes: 4,
      percent: 100,
      isDone: true,
    });
    expect(text).not.toContain('no history import since the collector started');
    expect(text).toMatch(
      /history {6}: RECENT import in progress: WhatsApp sent all of it \(100 % at [^)]+\), 1,000 events kept in 4 pushes.*; 1,000 history events still queued in the outbox/
    );
  }, 180_000);

  it('wa-lake backfill into the outbox of a replay warns that no live session asks; status shows each backfill', async () => {
    const queued = await runCli(['backfill', '--group', GROUP, '--since', '2026-01-01'], { env });
    expect(queued.code).toBe(0);
    expect(queued.stdout).toContain(`backfill of ${GROUP} queued`);
    expect(queued.stderr).toContain('wa-lake: warning: the collector of');
    expect(queued.stderr).toContain('which never asks WhatsApp: the backfill waits until a live collector');

    let { json, text } = await readStatus();
    expect(json.backfills).toEqual([
      expect.objectContaining({ groupJid: GROUP, state: 'waiting', isOpen: true, since: '2026-01-01', pages: 0 }),
    ]);
    expect(text).toMatch(
      new RegExp(
        `backfill {5}: ${GROUP.replace('.', '\\.')} waiting to be asked, back to 2026-01-01; no page asked yet \\(updated \\d+ s ago\\); the collector of this outbox is a replay`
      )
    );

    // What the collector's runner writes as WhatsApp answers, or does not.
    const store = BackfillStore.open({ path: env.OUTBOX_PATH });
    try {
      store.markAsked(GROUP, Date.now());
      store.recordAnswer(GROUP, {
        cursor: { id: 'OLD', fromMe: false, participant: null, tsMs: Date.parse('2026-02-10T08:00:00Z') },
        messages: 50,
        state: 'exhausted',
      });
      store.request(OTHER, Date.parse('2026-02-01T00:00:00Z'), null);
      for (let attempt = 0; attempt < 3; attempt++) store.markAsked(OTHER, Date.now());
      store.setState(OTHER, 'unanswered');
    } finally {
      store.close();
    }
    ({ json, text } = await readStatus());
    expect(json.backfills?.map((backfill) => [backfill.groupJid, backfill.state, backfill.isOpen])).toEqual([
      [GROUP, 'exhausted', false],
      [OTHER, 'unanswered', false],
    ]);
    expect(text).toContain(
      `backfill     : ${GROUP} exhausted: WhatsApp had nothing older than 2026-02-10T08:00:00.000Z (asked back to 2026-01-01): 1 page, 50 messages (ended`
    );
    expect(text).toContain(
      `backfill     : ${OTHER} unanswered: WhatsApp did not answer 3 requests for a page (asked back to 2026-02-01, 0 pages, 0 messages before)`
    );
  }, 120_000);
});
