import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeParquetExport } from '../../../cli/export/write-parquet-export.js';
import { eventIdFromName } from '../../../collector/event-id.js';
import { ANALYST_DATASETS, importChatExport } from '../../../lake/index.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const G1 = '120363000000000951@g.us';
const ANA = '100000000000951@lid';
const BEA = '100000000000952@lid';
const BEA_PHONE = '5500000000952@s.whatsapp.net';
/** Day d of March 2024 at 12:00 in São Paulo. */
const march = (day: number): number => Date.parse('2024-03-01T15:00:00Z') / 1000 + (day - 1) * 86_400;

function scenario(): Body[] {
  return [
    {
      type: 'group-participants.update',
      chat_jid: G1,
      captured_at: '2024-02-28T12:00:00.000Z',
      payload: { id: G1, action: 'add', participants: [{ id: ANA, admin: null }] },
    },
    { type: 'lid-mapping.update', chat_jid: null, payload: { lid: BEA, pn: BEA_PHONE } },
    ...Array.from({ length: 30 }, (_, i) => textMessage({ group: G1, id: `A${String(i)}`, sender: ANA }, march(1 + i))),
    ...Array.from({ length: 12 }, (_, i) =>
      textMessage({ group: G1, id: `B${String(i)}`, sender: i % 2 ? BEA : BEA_PHONE }, march(1 + i) + 600, {
        replyTo: `A${String(i)}`,
      })
    ),
  ];
}

const fresh = useFreshLake();
let dir = '';
beforeAll(async () => {
  for (const [index, body] of scenario().entries())
    await fresh.lake.store(`00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, JSON.stringify(body));
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-parquet-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every row of a Parquet file, read by hyparquet (pure JavaScript: no DuckDB, no Arrow). */
async function readParquet(path: string): Promise<{ rows: Record<string, unknown>[]; numRows: bigint }> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  return { rows: await parquetReadObjects({ file }), numRows: metadata.num_rows };
}

describe('wa-lake export --parquet (ADR 0025)', () => {
  it('writes the message read model and the daily views, read back by an independent reader with the views’ counts', async () => {
    const files = await writeParquetExport(fresh.lake.pool, join(dir, 'function'));
    expect(files.map((file) => file.dataset)).toEqual(ANALYST_DATASETS.map((dataset) => dataset.name));
    for (const [index, file] of files.entries()) {
      const dataset = ANALYST_DATASETS[index];
      if (!dataset) throw new Error('a file without its dataset');
      const viewCount = await fresh.lake.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${dataset.view}`);
      const { rows, numRows } = await readParquet(file.path);
      expect([file.dataset, rows.length, Number(numRows), file.rows]).toEqual([
        file.dataset,
        Number(viewCount.rows[0]?.n),
        Number(viewCount.rows[0]?.n),
        Number(viewCount.rows[0]?.n),
      ]);
      expect(Object.keys(rows[0] ?? {}).sort(), file.dataset).toEqual(dataset.columns.map((c) => c.name).sort());
    }
    const { rows: messages } = await readParquet(join(dir, 'function', 'messages.parquet'));
    expect(messages).toHaveLength(42);
    const b0 = messages.find((row) => row['message_id'] === 'B0');
    // A phone sender counts for its LID; times are instants (UTC), replies keep their target.
    expect(b0).toMatchObject({ chat_jid: G1, sender_id: BEA, reply_to_id: 'A0', kind: 'text', edit_count: 0 });
    expect(new Date(Number(b0?.['sent_at']) || String(b0?.['sent_at'])).toISOString()).toBe('2024-03-01T15:10:00.000Z');
    const { rows: days } = await readParquet(join(dir, 'function', 'member_activity_days.parquet'));
    const sums = (key: string): number => days.reduce((sum, row) => sum + Number(row[key]), 0);
    const view = await fresh.lake.pool.query<{ messages: number; replies: number }>(
      `SELECT sum(messages)::int AS messages, sum(replies)::int AS replies FROM engagement_member_activity_days`
    );
    expect({ messages: sums('messages'), replies: sums('replies') }).toEqual(view.rows[0]);
    expect(view.rows[0]).toEqual({ messages: 42, replies: 12 });
  });

  it('runs as `wa-lake export --parquet DIR`, and refuses no choice or both', async () => {
    const env = { DATABASE_URL: fresh.url };
    const run = await runCli(['export', '--parquet', join(dir, 'cli')], { env, timeoutMs: 120_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${String(ANALYST_DATASETS.length)} Parquet files written:`);
    expect(run.stdout).toContain(`${join(dir, 'cli', 'messages.parquet')}: 42 rows`);
    expect((await readParquet(join(dir, 'cli', 'group_daily.parquet'))).rows.length).toBeGreaterThan(0);
    const neither = await runCli(['export'], { env });
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('choose one: --participant ID');
    const both = await runCli(['export', '--parquet', dir, '--participant', ANA], { env });
    expect(both.code).toBe(1);
  });
  it('overwrites its own files, and refuses /, the checkout and a file of the same name it did not write', async () => {
    const env = { DATABASE_URL: fresh.url };
    const out = join(dir, 'again');
    expect((await runCli(['export', '--parquet', out], { env, timeoutMs: 120_000 })).code).toBe(0);
    const again = await runCli(['export', '--parquet', out], { env, timeoutMs: 120_000 });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const own = join(dir, 'own');
    mkdirSync(own);
    writeFileSync(join(own, 'messages.parquet'), 'my own analysis\n');
    const checkout = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
    const [foreign, root, tree] = await Promise.all([
      runCli(['export', '--parquet', own], { env }),
      runCli(['export', '--parquet', '/'], { env }),
      runCli(['export', '--parquet', checkout], { env }),
    ]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(
      `wa-lake: refusing to overwrite messages.parquet in ${own}: not written by wa-lake export --parquet; ` +
        'name another folder, or move them away\n'
    );
    expect(readFileSync(join(own, 'messages.parquet'), 'utf8')).toBe('my own analysis\n');
    expect(readdirSync(own)).toEqual(['messages.parquet']);
    expect(root.code).toBe(1);
    expect(root.stderr).toContain(
      `refusing to write ${String(ANALYST_DATASETS.length)} Parquet files into /: it is the filesystem root`
    );
    expect(existsSync('/messages.parquet')).toBe(false);
    expect(tree.code).toBe(1);
    expect(tree.stderr).toContain(`into ${checkout}: it is the wa-lake checkout`);
    expect(existsSync(join(checkout, 'messages.parquet'))).toBe(false);
  }, 240_000);

  it("writes a chat export's messages into messages.parquet with source export, so it counts what the daily views count", async () => {
    const group = '120363000000000993@g.us';
    const text = readFileSync(new URL('../../fixtures/chat-exports/android-en-12h.txt', import.meta.url), 'utf8');
    const imported = await importChatExport(fresh.lake.pool, {
      groupJid: group,
      text,
      timeZone: 'America/Sao_Paulo',
      eventIdOf: eventIdFromName,
    });
    expect(imported.inserted).toBe(5);
    await writeParquetExport(fresh.lake.pool, join(dir, 'with-export'));
    const { rows: messages } = await readParquet(join(dir, 'with-export', 'messages.parquet'));
    const exported = messages.filter((row) => row['source'] === 'export');
    expect(exported).toHaveLength(5);
    expect(exported.every((row) => row['chat_jid'] === group && row['is_counted'] === true)).toBe(true);
    expect(messages.filter((row) => row['source'] === 'capture')).toHaveLength(42);
    const { rows: daily } = await readParquet(join(dir, 'with-export', 'group_daily.parquet'));
    const dailyMessages = daily.reduce((sum, row) => sum + Number(row['messages']), 0);
    expect(messages.filter((row) => row['is_counted'] === true)).toHaveLength(dailyMessages);
    expect(dailyMessages).toBe(47);
  });
});
