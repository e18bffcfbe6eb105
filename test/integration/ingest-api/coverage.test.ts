import { describe, expect, it } from 'vitest';
import { formatGroupCoverage } from '../../../cli/commands/coverage.js';
import { CoverageBeats } from '../../../collector/coverage-beats.js';
import { filterEvent } from '../../../collector/edge-filter.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../../../collector/prepare-item.js';
import { createRootLogger } from '../../../common/logger.js';
import { renderReportHtml } from '../../../cli/report/render-html.js';
import { readCoverageDays, readEngagementReport } from '../../../lake/index.js';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const HOUR_MS = 3_600_000;
const ACCOUNT = '5500000000009:12@s.whatsapp.net';
const G1 = '120363000000029001@g.us';
const G2 = '120363000000029002@g.us';
const at = (iso: string): number => Date.parse(iso);

/** Bodies exactly as the collector's pipeline prepares them (filter → keys → body), in emission order. */
function collectorDeliveries(): {
  deliveries: Array<{ eventId: string; body: string }>;
  emit: (name: string, data: unknown, capturedAt: Date) => void;
} {
  const deliveries: Array<{ eventId: string; body: string }> = [];
  const emit = (name: string, data: unknown, capturedAt: Date): void => {
    for (const kept of filterEvent(name, data).kept) {
      const prepared = prepareItem(kept, capturedAt.toISOString(), ACCOUNT, DEFAULT_BODY_LIMITS, {
        source: kept.source ?? 'live',
      });
      deliveries.push({ eventId: prepared.row.eventId, body: prepared.row.body });
    }
  };
  return { deliveries, emit };
}

const fresh = useFreshLake();

describe('coverage from the collector’s own session events and beats (ADR 0016)', () => {
  it('says which days of each group were fully, partly or not observed, and wa-lake coverage prints them', async () => {
    const { deliveries, emit } = collectorDeliveries();
    let now = at('2026-01-01T23:30:00Z');
    const beats = new CoverageBeats({
      pipeline: { handle: emit },
      logger: createRootLogger({ level: 'silent' }),
      getSelfJid: () => ACCOUNT,
      intervalMs: HOUR_MS,
      now: () => now,
    });
    // A history message older than the first beat: its day is in the lake, but not observed.
    emit(
      'messaging-history.set',
      {
        chats: [],
        contacts: [],
        messages: [
          {
            key: { remoteJid: G1, fromMe: false, id: 'OLD1', participant: '100000000000001@lid' },
            messageTimestamp: at('2025-12-31T10:00:00Z') / 1000,
            message: { conversation: 'before the link' },
          },
        ],
      },
      new Date(now)
    );
    // Open late on Jan 1, beats every hour until Jan 3 11:30, then the session closes (reconnecting) …
    beats.onOpen([G1, G2]);
    while (now < at('2026-01-03T11:30:00Z')) {
      now += HOUR_MS;
      beats.beat();
    }
    now = at('2026-01-03T12:00:00Z');
    beats.onClosed('reconnecting');
    // … and on Jan 2 the account was out of G2 for an hour (removed, then re-added).
    const removal = (action: 'remove' | 'add', iso: string) =>
      emit(
        'group-participants.update',
        { id: G2, author: '100000000000001@lid', participants: [{ id: '5500000000009@s.whatsapp.net' }], action },
        new Date(iso)
      );
    removal('remove', '2026-01-02T10:00:00Z');
    removal('add', '2026-01-02T11:00:00Z');
    // Back on Jan 4 06:00; beats until Jan 5 03:00, then the collector crashes (no close, beats stop).
    now = at('2026-01-04T06:00:00Z');
    beats.onOpen(null);
    while (now < at('2026-01-05T03:00:00Z')) {
      now += HOUR_MS;
      beats.beat();
    }
    beats.onClosed('stopped');
    // Delivered in reverse: coverage is a function of the stored events, not of their arrival.
    for (const delivery of [...deliveries].reverse()) await fresh.lake.store(delivery.eventId, delivery.body);

    const [g1, g2] = await readCoverageDays(fresh.lake.pool, { now: new Date('2026-01-07T12:00:00Z') }).then((all) =>
      [G1, G2].map((jid) => all.find((group) => group.groupJid === jid))
    );
    const byDay = (group: typeof g1) => Object.fromEntries((group?.days ?? []).map((d) => [d.day, d.coverage]));
    expect(byDay(g1)).toEqual({
      '2025-12-31': 'none',
      '2026-01-01': 'partly',
      '2026-01-02': 'full',
      '2026-01-03': 'partly',
      '2026-01-04': 'partly',
      '2026-01-05': 'partly',
      '2026-01-06': 'none',
      '2026-01-07': 'none',
    });
    expect(byDay(g2)).toMatchObject({ '2026-01-01': 'partly', '2026-01-02': 'partly', '2026-01-03': 'partly' });
    expect(g1?.periods).toEqual([
      { startedAt: '2026-01-01T23:30:00.000Z', endedAt: '2026-01-03T12:00:00.000Z' },
      { startedAt: '2026-01-04T06:00:00.000Z', endedAt: '2026-01-05T03:00:00.000Z' },
    ]);
    expect(formatGroupCoverage(g1 ?? { groupJid: G1, days: [], periods: [] })).toEqual([
      `${G1}  2025-12-31 … 2026-01-07: 1 fully observed, 4 partly observed, 3 not observed`,
      '  partly observed: 2026-01-01, 2026-01-03 … 2026-01-05',
      '  not observed:    2025-12-31, 2026-01-06 … 2026-01-07',
    ]);

    // A dashboard reads the same days from the view (up to today), to shade them beside its own charts.
    const view = await fresh.lake.pool.query<{ day: string; coverage: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, coverage FROM whatsapp_group_day_coverage
        WHERE group_jid = $1 AND day <= '2026-01-07' ORDER BY day`,
      [G1]
    );
    expect(Object.fromEntries(view.rows.map((row) => [row.day, row.coverage]))).toEqual(byDay(g1));

    // The report shades the same days: dark where not observed, light where partly (ADR 0016).
    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: G1,
      from: '2025-12-31',
      to: '2026-01-07',
      lurkerDays: 30,
      topMembers: 5,
    });
    expect(report.coverage.isRecorded).toBe(true);
    expect(Object.fromEntries(report.coverage.days.map((d) => [d.day, d.coverage]))).toEqual(byDay(g1));
    const html = renderReportHtml(report, new Date('2026-01-07T12:00:00Z'));
    expect(html).toContain('dark: not observed, 3 days; light: partly observed, 4 days');
    const messagesChart = html.slice(html.indexOf('id="messages-per-day"'), html.indexOf('id="active-members"'));
    expect(messagesChart.match(/<polygon [^>]*fill-opacity="0\.22"/g)).toHaveLength(2);
    expect(messagesChart.match(/<polygon [^>]*fill-opacity="0\.09"/g)).toHaveLength(2);

    const run = await runCli(['coverage', '--group', G2], { env: { DATABASE_URL: fresh.url } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^${G2.replace('.', '\\.')}  2026-01-01 … \\d{4}-\\d{2}-\\d{2}: 0 fully observed`)
    );
  });

  it("starts a group's days at the first event the lake got of it, not at the creation time its metadata carries", async () => {
    const captured = '2025-06-01T10:00:00.000Z';
    const groups = [
      ['120363000000029003@g.us', '2025-05-22T08:00:00Z'],
      ['120363000000029004@g.us', '2025-06-01T09:00:00Z'],
    ] as const;
    for (const [index, [jid, creation]] of groups.entries()) {
      const payload = { id: jid, subject: `Group ${String(index)}`, creation: at(creation) / 1000, participants: [] };
      const body = JSON.stringify({ type: 'groups.upsert', chat_jid: jid, payload, captured_at: captured });
      await fresh.lake.store(`00000000-0000-4000-8000-0000000290${String(index).padStart(2, '0')}`, body);
    }
    const coverage = await readCoverageDays(fresh.lake.pool, { now: new Date('2025-06-02T12:00:00Z') });
    const firstDays = groups.map(([jid]) => coverage.find((group) => group.groupJid === jid)?.days[0]?.day);
    expect(firstDays).toEqual(['2025-06-01', '2025-06-01']);
  });
});
