import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { CoverageBeats } from '../../../collector/coverage-beats.js';
import { eventIdFromName } from '../../../collector/event-id.js';
import { filterEvent } from '../../../collector/edge-filter.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../../../collector/prepare-item.js';
import { createRootLogger } from '../../../common/logger.js';
import { renderReportHtml } from '../../../cli/report/render-html.js';
import { MAX_EXPORTED_MESSAGE_BYTES } from '../../../lake/chat-export/parse-chat-export.js';
import {
  importChatExport,
  linkMembers,
  NoChatMessagesError,
  readEngagementReport,
  redactOldMessageBodies,
} from '../../../lake/index.js';
import { forgetExportSenderInLake } from '../../../lake/privacy/forget-export-sender.js';
import { forgetParticipantInLake } from '../../../lake/privacy/forget-participant.js';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { textMessage } from '../../helpers/message-events.js';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const FIXTURES = new URL('../../fixtures/chat-exports/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
const ZONE = 'America/Sao_Paulo';
const ANA = '100000000000031@lid';
const CAIO = '100000000000033@lid';
const CAIO_PHONE = '5511900000001@s.whatsapp.net';
const ACCOUNT = '5500000000009:12@s.whatsapp.net';
const HOUR_MS = 3_600_000;

const fresh = useFreshLake();

async function inTransaction<T>(run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await fresh.lake.pool.connect();
  try {
    await client.query('BEGIN');
    const result = await run(client);
    await client.query('COMMIT');
    return result;
  } finally {
    client.release();
  }
}

async function memberLinkIds(): Promise<string[]> {
  const { rows } = await fresh.lake.pool.query<{ participant_id: string }>(
    'SELECT participant_id FROM whatsapp_member_links ORDER BY 1'
  );
  return rows.map((row) => row.participant_id);
}
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-export-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const importText = (groupJid: string, text: string) =>
  importChatExport(fresh.lake.pool, {
    groupJid,
    text,
    timeZone: ZONE,
    eventIdOf: eventIdFromName,
    erasureKey: TEST_ERASURE_KEY,
  });

async function exportedRows(groupJid: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await fresh.lake.pool.query<Record<string, unknown>>(
    `SELECT source, occurred_at AS at, payload->'key'->>'participant' AS phone, payload->>'pushName' AS name,
            payload->'message'->>'conversation' AS text, payload->'export'->>'kind' AS kind
       FROM whatsapp_event_logs WHERE type = 'export.message' AND chat_jid = $1 ORDER BY occurred_at, event_id`,
    [groupJid]
  );
  return rows;
}

async function groupDaily(groupJid: string): Promise<Record<string, number>> {
  const { rows } = await fresh.lake.pool.query<{ day: string; messages: number }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, messages FROM engagement_group_daily
      WHERE group_jid = $1 AND messages > 0 ORDER BY day`,
    [groupJid]
  );
  return Object.fromEntries(rows.map((row) => [row.day, row.messages]));
}

describe('wa-lake import-export: WhatsApp chat exports in the lake (ADR 0023)', () => {
  it.each([
    ['android-en-12h.txt', '120363000000030001@g.us', 0],
    ['android-ptbr-24h.txt', '120363000000030002@g.us', 0],
    ['ios-en-12h.txt', '120363000000030003@g.us', 1],
    ['ios-ptbr-24h.txt', '120363000000030004@g.us', 1],
  ])(
    'reads %s: messages with their time, sender and kind; system lines are not messages',
    async (file, group, extraMedia) => {
      const imported = await importText(group, fixture(file));
      expect(imported.unreadable).toEqual([]);
      expect(imported.inserted).toBe(5 + extraMedia);
      const rows = await exportedRows(group);
      expect(rows.map((row) => row['kind'])).toEqual([
        'text',
        'text',
        'media',
        'deleted',
        ...(extraMedia ? ['media'] : []),
        'text',
      ]);
      expect(rows.every((row) => row['source'] === 'export')).toBe(true);
      // 09:20 in São Paulo (UTC−3), seconds as written; a multi-line message is one message.
      expect((rows[0]?.['at'] as Date).toISOString().slice(0, 16)).toBe('2021-01-05T12:20');
      expect(rows[0]?.['text']).toMatch(/\n(Second line of the welcome|Segunda linha)$/);
      expect(rows[0]?.['name']).toBe('Ana');
      // A sender written as a phone number (with bidi marks on iOS) is that phone's JID, never a name.
      expect(rows[1]).toMatchObject({ phone: CAIO_PHONE, name: null });
      expect(rows[2]?.['name']).toBe('Bea');
      expect(imported.systemLines).toBe(file.startsWith('android') ? 5 : 4);
    }
  );

  it('reads lines under the lake’s subject of the group as system lines, not as messages of the group', async () => {
    const group = '120363000000030005@g.us';
    await fresh.lake.pool.query(`INSERT INTO whatsapp_groups (jid, subject) VALUES ($1, 'Trail club')`, [group]);
    const imported = await importText(
      group,
      '[5/1/24, 9:01:00 AM] Trail club: Alice added Bob\n[5/1/24, 9:02:00 AM] Alice: Welcome Bob\n'
    );
    expect(imported).toMatchObject({ messages: 1, systemLines: 1 });
    expect((await exportedRows(group)).map((row) => row['name'])).toEqual(['Alice']);
  });

  it('adds nothing when the same file is imported again or a newer export overlaps it', async () => {
    const group = '120363000000030011@g.us';
    const older = fixture('android-en-12h.txt');
    expect((await importText(group, older)).inserted).toBe(5);
    expect((await importText(group, older)).inserted).toBe(0);
    // The newer export starts later and goes further: only its new messages are stored.
    const newer =
      older.split('\n').slice(5).join('\n') + '1/15/21, 8:00 AM - Bea: New one\n1/15/21, 8:00 AM - Bea: New one\n';
    const again = await importText(group, newer);
    expect(again).toMatchObject({ messages: 6, inserted: 2 });
    expect(await exportedRows(group)).toHaveLength(7);
  });

  it('adds nothing when the same file is imported again in another time zone, and says the first zone wins', async () => {
    const group = '120363000000030012@g.us';
    const text = fixture('android-en-12h.txt');
    await importText(group, text);
    const again = await importChatExport(fresh.lake.pool, {
      groupJid: group,
      text,
      timeZone: 'UTC',
      eventIdOf: eventIdFromName,
    });
    expect(again).toMatchObject({ inserted: 0, earlierTimeZones: [{ timeZone: ZONE, messages: 5 }] });
    expect((await exportedRows(group)).map((row) => (row['at'] as Date).toISOString().slice(11, 16))).toContain(
      '12:20'
    );
  });

  it('reports each unreadable line with its number and imports the rest', async () => {
    const group = '120363000000030021@g.us';
    const imported = await importText(group, fixture('partly-unreadable.txt'));
    expect(imported.unreadable).toEqual([
      { line: 1, reason: 'before the first message' },
      { line: 4, reason: 'undecodable characters' },
      { line: 6, reason: 'undecodable characters' },
      { line: 8, reason: 'looks like a message header but is none' },
      { line: 10, reason: 'time out of range' },
    ]);
    expect((await exportedRows(group)).map((row) => row['text'])).toEqual([
      'Bem-vindos!\nSegunda linha',
      'primeira linha\nterceira linha',
      'depois do corte',
      'Até sábado',
    ]);
  });

  it('stores nothing and says why when a text holds no message at all (empty, binary)', async () => {
    const group = '120363000000030022@g.us';
    await expect(importText(group, '')).rejects.toThrow('holds no text');
    await expect(importText(group, '\u0000\u0001PK\u0003\u0004\n\u0000')).rejects.toThrow(NoChatMessagesError);
    await expect(importText(group, '\u0000\u0001PK\u0003\u0004\n\u0000')).rejects.toThrow('UTF-16 or binary?');
    expect(await exportedRows(group)).toEqual([]);
  });

  it('stores the rest of a file whose one message is over 4 MiB', async () => {
    const group = '120363000000030023@g.us';
    const huge = 'x'.repeat(MAX_EXPORTED_MESSAGE_BYTES + 1);
    const imported = await importText(group, `1/13/25 10:00 - Ana: ${huge}\n1/13/25 10:01 - Bea: short\n`);
    expect(imported).toMatchObject({ inserted: 1, unreadable: [{ line: 1, reason: 'message text over 4 MiB' }] });
  });

  it('counts exported messages only on days the lake did not observe, so engagement runs on across the boundary', async () => {
    const group = '120363000000030031@g.us';
    // Captured: a message on Dec 31 (a history day, not observed by beats) and one on Jan 2 (observed by beats).
    const deliveries: Array<{ eventId: string; body: string }> = [];
    const emit = (name: string, data: unknown, capturedAt: Date): void => {
      for (const kept of filterEvent(name, data).kept) {
        const prepared = prepareItem(kept, capturedAt.toISOString(), ACCOUNT, DEFAULT_BODY_LIMITS, { source: 'live' });
        deliveries.push({ eventId: prepared.row.eventId, body: prepared.row.body });
      }
    };
    let now = Date.parse('2026-01-01T12:00:00Z');
    const beats = new CoverageBeats({
      pipeline: { handle: emit },
      logger: createRootLogger({ level: 'silent' }),
      getSelfJid: () => ACCOUNT,
      intervalMs: HOUR_MS,
      now: () => now,
    });
    beats.onOpen([group]);
    while (now < Date.parse('2026-01-03T12:00:00Z')) {
      now += HOUR_MS;
      beats.beat();
    }
    beats.onClosed('stopped');
    for (const delivery of deliveries) await fresh.lake.store(delivery.eventId, delivery.body);
    const captured = [
      textMessage({ group, id: 'C1', sender: ANA }, Date.parse('2025-12-31T18:00:00Z') / 1000),
      textMessage({ group, id: 'C2', sender: ANA }, Date.parse('2026-01-02T14:00:00Z') / 1000),
    ];
    for (const [index, body] of captured.entries())
      await fresh.lake.store(`00000000-0000-4000-8030-${String(index).padStart(12, '0')}`, JSON.stringify(body));

    await importText(
      group,
      [
        '28/12/2025 10:00 - Ana: a',
        '28/12/2025 10:05 - Bea: b',
        '29/12/2025 11:00 - Ana: c',
        '30/12/2025 09:00 - Ana: d',
        '31/12/2025 09:00 - Ana: e',
        '31/12/2025 15:00 - Ana: hello group',
        '02/01/2026 08:00 - Bea: f',
        '',
      ].join('\n')
    );
    // Dec 28–30 from the export; Dec 31 (a captured message) and Jan 2 (observed) from the capture alone.
    expect(await groupDaily(group)).toEqual({
      '2025-12-28': 2,
      '2025-12-29': 1,
      '2025-12-30': 1,
      '2025-12-31': 1,
      '2026-01-02': 1,
    });
    const { rows } = await fresh.lake.pool.query<{ day: string; is_counted: boolean }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, is_counted FROM whatsapp_export_days WHERE group_jid = $1 ORDER BY day`,
      [group]
    );
    expect(rows.filter((row) => !row.is_counted).map((row) => row.day)).toEqual(['2025-12-31', '2026-01-02']);
    // The report says which days come from the export, and only those.
    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: group,
      from: '2025-12-28',
      to: '2026-01-02',
      lurkerDays: 30,
      topMembers: 5,
    });
    expect(report.exportDays).toEqual([
      { day: '2025-12-28', groupJid: group, messages: 2 },
      { day: '2025-12-29', groupJid: group, messages: 1 },
      { day: '2025-12-30', groupJid: group, messages: 1 },
    ]);
    expect(report.totals.messages).toBe(6);
    const html = renderReportHtml(report, new Date('2026-01-03T00:00:00Z'));
    expect(html).toContain('Days counted from chat exports');
    expect(html).toMatch(/<td>3<\/td><td>2025-12-28 to 2025-12-30<\/td><td>4<\/td>/);
  });

  it('resolves senders by phone owner and member name, lists the rest, and a later link re-attributes them', async () => {
    const group = '120363000000030041@g.us';
    await fresh.lake.store(
      '00000000-0000-4000-8041-000000000001',
      JSON.stringify({ type: 'lid-mapping.update', chat_jid: null, payload: { lid: CAIO, pn: CAIO_PHONE } })
    );
    await linkMembers(fresh.lake.pool, [{ participantId: ANA, memberId: 'discord:ana', name: 'Ana' }], 'csv');
    await fresh.lake.pool.query(`INSERT INTO whatsapp_groups (jid, subject) VALUES ($1, 'Trail club')`, [group]);
    const file = join(dir, 'export.txt');
    writeFileSync(file, fixture('android-en-12h.txt'));
    const env = { DATABASE_URL: fresh.url };
    const run = await runCli(['import-export', file, '--group', group, '--time-zone', ZONE], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('personal data');
    expect(run.stdout).toContain('stored 5 new messages, 0 already in the lake');
    expect(run.stdout).toContain('days of this group counted from exports: 2021-01-05, 2021-01-13 … 2021-01-14');
    expect(run.stdout).toContain('1 sender unresolved (1 message): --unresolved lists them');
    const people = async () =>
      (
        await fresh.lake.pool.query<{ person_key: string; messages: number }>(
          `SELECT person_key, sum(messages)::int AS messages FROM engagement_member_activity_days
            WHERE group_jid = $1 GROUP BY 1 ORDER BY 1`,
          [group]
        )
      ).rows;
    expect(await people()).toEqual([
      { person_key: CAIO, messages: 2 },
      { person_key: 'discord:ana', messages: 2 },
      { person_key: 'name:Bea', messages: 1 },
    ]);
    const unresolved = await runCli(['import-export', '--group', group, '--unresolved'], { env });
    expect(unresolved.stdout).toContain("Bea (1 message): wa-lake members link 'name:Bea' MEMBER_ID");
    // The report names an unresolved sender as the export wrote it, not by its key.
    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: group,
      from: '2021-01-01',
      to: '2021-01-31',
      lurkerDays: 30,
      topMembers: 5,
    });
    expect(report.topMembers.find((member) => member.participantId === 'name:Bea')?.displayName).toBe('Bea');

    const linked = await runCli(['members', 'link', 'name:Bea', 'discord:bea'], { env });
    expect(linked.code).toBe(0);
    expect(linked.stderr).toBe('');
    expect(await people()).toContainEqual({ person_key: 'discord:bea', messages: 1 });
    const after = await runCli(['import-export', '--group', group, '--unresolved'], { env });
    expect(after.stdout).not.toContain('name:Bea');
  });

  it('refuses a group the lake has never seen unless --force, and says when the day/month order was assumed', async () => {
    const group = '120363000000030061@g.us';
    const file = join(dir, 'ambiguous.txt');
    writeFileSync(file, fixture('ambiguous-dates.txt'));
    const env = { DATABASE_URL: fresh.url };
    const refused = await runCli(['import-export', file, '--group', group], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the lake has never seen the group ${group}`);
    expect(refused.stderr).toContain('--force');
    expect(await exportedRows(group)).toEqual([]);

    const forced = await runCli(['import-export', file, '--group', group, '--force'], { env });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('dates read month-first: ASSUMED');
    expect(forced.stdout).toContain('--date-order day-first');
    const ordered = await runCli(['import-export', file, '--group', group, '--date-order', 'day-first'], { env });
    expect(ordered.stdout).toContain('dates read day-first (--date-order)');
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    const none = await runCli(['import-export', empty, '--group', group], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`wa-lake: ${empty}: holds no text: nothing was imported`);
  });

  it('replaces the earlier reading of the same file when it is imported again in the other date order', async () => {
    const group = '120363000000030064@g.us';
    const text = '1/2/09 10:00 - Ana: hi\n';
    const readAs = (dateOrder?: 'day-first' | 'month-first') =>
      importChatExport(fresh.lake.pool, {
        groupJid: group,
        text,
        timeZone: 'UTC',
        eventIdOf: eventIdFromName,
        erasureKey: TEST_ERASURE_KEY,
        ...(dateOrder === undefined ? {} : { dateOrder }),
      });
    const days = async (): Promise<string[]> =>
      (await exportedRows(group)).map((row) => (row['at'] as Date).toISOString().slice(0, 10));

    const assumed = await readAs();
    expect(assumed.dateOrder.basis).toBe('assumed');
    const other = assumed.dateOrder.order === 'day-first' ? 'month-first' : 'day-first';
    const dayOf = { 'day-first': '2009-02-01', 'month-first': '2009-01-02' } as const;
    expect(await days()).toEqual([dayOf[assumed.dateOrder.order]]);

    const corrected = await readAs(other);
    expect(corrected.replacedReadings).toEqual([{ dateOrder: assumed.dateOrder.order, messages: 1 }]);
    expect(await days()).toEqual([dayOf[other]]);
    expect(await groupDaily(group)).toEqual({ [dayOf[other]]: 1 });

    // The same order again changes nothing; the first order again makes it the reading the lake counts.
    expect((await readAs(other)).replacedReadings).toEqual([]);
    await readAs(assumed.dateOrder.order);
    expect(await days()).toEqual([dayOf[assumed.dateOrder.order]]);
    expect(await groupDaily(group)).toEqual({ [dayOf[assumed.dateOrder.order]]: 1 });
  });

  it('refuses a --date-order the file contradicts and stores nothing, so a later correct import is not shadowed', async () => {
    const group = '120363000000030062@g.us';
    const file = join(dir, 'android-day-first.txt');
    const days = ['01/07/2025', '13/07/2025', '14/07/2025', '15/07/2025', '16/07/2025'];
    writeFileSync(file, days.map((day, index) => `${day} 10:00 - Ana: message ${String(index)}\n`).join(''));
    const env = { DATABASE_URL: fresh.url };
    const refused = await runCli(['import-export', file, '--group', group, '--force', '--date-order', 'month-first'], {
      env,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      '--date-order month-first contradicts the file: 4 of its dates exist only day-first'
    );
    expect(refused.stderr).toContain('its dates fit day-first');
    expect(await exportedRows(group)).toEqual([]);
    const right = await runCli(['import-export', file, '--group', group, '--force', '--date-order', 'day-first'], {
      env,
    });
    expect(right.code).toBe(0);
    const rows = await exportedRows(group);
    expect(rows.map((row) => (row['at'] as Date).toISOString().slice(0, 10))).toEqual([
      '2025-07-01',
      '2025-07-13',
      '2025-07-14',
      '2025-07-15',
      '2025-07-16',
    ]);
  });

  it('makes a group imported with --force a group everywhere, named as the export names it, also after rebuild', async () => {
    const group = '120363000000030063@g.us';
    const androidGroup = '120363000000030064@g.us';
    const env = { DATABASE_URL: fresh.url };
    const ios = join(dir, 'ios.txt');
    writeFileSync(ios, fixture('ios-en-12h.txt'));
    const android = join(dir, 'WhatsApp Chat with Runners.txt');
    writeFileSync(android, fixture('android-en-12h.txt'));
    expect((await runCli(['import-export', ios, '--group', group, '--force'], { env })).code).toBe(0);
    expect((await runCli(['import-export', android, '--group', androidGroup, '--force'], { env })).code).toBe(0);
    const subjects = async (): Promise<Record<string, string | null>> => {
      const { rows } = await fresh.lake.pool.query<{ jid: string; subject: string | null }>(
        'SELECT jid, subject FROM whatsapp_groups WHERE jid = ANY($1) ORDER BY jid',
        [[group, androidGroup]]
      );
      return Object.fromEntries(rows.map((row) => [row.jid, row.subject]));
    };
    expect(await subjects()).toEqual({ [group]: 'Trail club', [androidGroup]: 'Runners' });

    const report = await runCli(['report', '--group', group, '--json'], { env });
    expect(report.code).toBe(0);
    const json = JSON.parse(report.stdout) as {
      groups: Array<{ groupJid: string; subject: string; messages: number }>;
    };
    expect(json.groups).toEqual([expect.objectContaining({ groupJid: group, subject: 'Trail club', messages: 6 })]);
    const coverage = await runCli(['coverage', '--group', group], { env });
    expect(coverage.code).toBe(0);
    expect(coverage.stdout).toContain(`${group}  2021-01-05 …`);
    expect(coverage.stdout).toContain('counted from chat exports (ADR 0023): 2021-01-05');
    expect((await runCli(['coverage'], { env })).stdout).toContain(`${group}  2021-01-05 …`);

    // A JID the lake has never seen: coverage refuses it as the report does.
    const unknown = '120363000000039999@g.us';
    const [unknownCoverage, unknownReport] = await Promise.all([
      runCli(['coverage', '--group', unknown], { env }),
      runCli(['report', '--group', unknown, '--json'], { env }),
    ]);
    expect(unknownCoverage.code).toBe(1);
    expect(unknownReport.code).toBe(1);
    expect(unknownCoverage.stderr).toContain(`group ${unknown} is not in the lake`);
    expect(unknownReport.stderr).toContain(`group ${unknown} is not in the lake`);

    await rebuildProjections(fresh.lake.pool);
    expect(await subjects()).toEqual({ [group]: 'Trail club', [androidGroup]: 'Runners' });
    // A subject a captured event writes wins over the export's, whatever the order.
    await fresh.lake.store(
      '00000000-0000-4000-8000-000000030063',
      JSON.stringify({ type: 'groups.update', chat_jid: group, payload: { id: group, subject: 'Trail club 2025' } })
    );
    await rebuildProjections(fresh.lake.pool);
    expect((await subjects())[group]).toBe('Trail club 2025');
  });

  it('refuses a wall-clock time in a daylight-saving gap of the zone, and warns of an unapplied ENGAGEMENT_TIME_ZONE', async () => {
    const group = '120363000000030065@g.us';
    const text = [
      '30/03/2025 00:30 - Ana: before the change',
      '30/03/2025 01:30 - Ana: no such time in Lisbon',
      '30/03/2025 02:30 - Ana: after the change',
      '',
    ].join('\n');
    const imported = await importChatExport(fresh.lake.pool, {
      groupJid: group,
      text,
      timeZone: 'Europe/Lisbon',
      eventIdOf: eventIdFromName,
    });
    expect(imported.unreadable).toEqual([
      { line: 2, reason: 'time that does not exist in the time zone (daylight-saving gap)' },
    ]);
    expect(imported).toMatchObject({ inserted: 2, messages: 2 });
    expect((await exportedRows(group)).map((row) => (row['at'] as Date).toISOString())).toEqual([
      '2025-03-30T00:30:00.000Z',
      '2025-03-30T01:30:00.000Z',
    ]);

    const file = join(dir, 'tokyo.txt');
    writeFileSync(file, text);
    const env = { DATABASE_URL: fresh.url, ENGAGEMENT_TIME_ZONE: 'Asia/Tokyo' };
    const run = await runCli(['import-export', file, '--group', group], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "warning: ENGAGEMENT_TIME_ZONE is Asia/Tokyo, but the lake's engagement days and the default zone of " +
        'import-export are America/Sao_Paulo'
    );
    expect(run.stdout).toContain('times read in America/Sao_Paulo');
    const report = await runCli(['report', '--json'], { env });
    expect(report.stderr).toContain('warning: ENGAGEMENT_TIME_ZONE is Asia/Tokyo');
    const help = await runCli(['import-export', '--help'], { env });
    expect(help.stdout).toContain("default: the lake's engagement time zone");
  });

  it('retention redacts exported texts and forget erases a member’s exported messages, which keep counting', async () => {
    const group = '120363000000030051@g.us';
    await importText(group, fixture('android-ptbr-24h.txt'));
    const client = await fresh.lake.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await forgetParticipantInLake(client, [CAIO_PHONE], 'erased-0000@erased');
      await client.query('COMMIT');
      expect(result.counts.messageBodiesRedacted).toBeGreaterThanOrEqual(2);
    } finally {
      client.release();
    }
    const rows = await exportedRows(group);
    expect(JSON.stringify(rows)).not.toContain('5511900000001');
    expect(rows.filter((row) => row['phone'] === 'erased-0000@erased').map((row) => row['text'])).toEqual([null, null]);
    await redactOldMessageBodies(fresh.lake.pool, new Date('2022-01-01T00:00:00Z'), { requestedBy: 'test' });
    expect((await exportedRows(group)).map((row) => row['text'])).toEqual([null, null, null, null, null]);
    expect(Object.values(await groupDaily(group)).reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('forget name:Gia erases the exported messages of a sender no participant is known for, and its link', async () => {
    const group = '120363000000030071@g.us';
    await importText(group, '1/13/25 10:00 - Gia: mine\n1/13/25 10:01 - Dora: not mine\n');
    await linkMembers(fresh.lake.pool, [{ participantId: 'name:Gia', memberId: 'discord:gia-71' }], 'cli');
    const result = await inTransaction((client) => forgetExportSenderInLake(client, 'gia', 'erased-0071@erased'));
    expect(result.counts).toMatchObject({ messageBodiesRedacted: 1, memberLinksDeleted: 1 });
    expect(await exportedRows(group)).toMatchObject([
      { name: null, text: null, phone: 'erased-0071@erased' },
      { name: 'Dora', text: 'not mine' },
    ]);
    expect(await memberLinkIds()).not.toContain('name:Gia');
    const again = await inTransaction((client) => forgetExportSenderInLake(client, 'Gia', 'erased-0072@erased'));
    expect(again.counts.messageBodiesRedacted).toBe(0);
  });

  it('forget of a participant erases the exported messages a name: link of the same member id attributes to it', async () => {
    const group = '120363000000030072@g.us';
    const eve = '100000000000072@lid';
    await importText(group, '1/13/25 10:00 - Eve at work: hello\n1/13/25 10:01 - Dora: hi\n');
    await linkMembers(
      fresh.lake.pool,
      [
        { participantId: eve, memberId: 'discord:eve-72' },
        { participantId: 'name:Eve at work', memberId: 'discord:eve-72' },
      ],
      'cli'
    );
    const result = await inTransaction((client) => forgetParticipantInLake(client, [eve], 'erased-0073@erased'));
    expect(result.counts.memberLinksDeleted).toBe(2);
    expect(await exportedRows(group)).toMatchObject([
      { name: null, text: null, phone: 'erased-0073@erased' },
      { name: 'Dora', text: 'hi' },
    ]);
    expect((await memberLinkIds()).filter((id) => id.includes('Eve') || id === eve)).toEqual([]);
  });

  it('wa-lake forget --participant name:NAME is accepted and needs no Temporal', async () => {
    const group = '120363000000030073@g.us';
    await importText(group, '1/13/25 10:00 - Finn: hello\n');
    const run = await runCli(['forget', '--participant', 'name:Finn'], {
      env: {
        DATABASE_URL: fresh.url,
        OUTBOX_PATH: join(dir, 'outbox.sqlite'),
        AUTH_DIR: join(dir, 'auth'),
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        ERASURE_KEY: TEST_ERASURE_KEY,
      },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 message body redacted');
    expect((await exportedRows(group))[0]).toMatchObject({ name: null, text: null });
  });
});
