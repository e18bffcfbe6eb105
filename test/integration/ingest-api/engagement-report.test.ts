import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../../cli/commands/report.js';
import { writeDemoEngagement } from '../../../cli/demo/demo-engagement.js';
import { readEngagementReport, linkMembers, rebuildProjections } from '../../../lake/index.js';
import type { EngagementReport } from '../../../lake/index.js';
import { UnknownReportGroupError } from '../../../lake/errors.js';
import { reactionEvent, textMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const G1 = '120363000000000201@g.us';
const G2 = '120363000000000202@g.us';
const ANA = '100000000000011@lid';
const BEA = '100000000000012@lid';
const BEA_PHONE = '5500000000012@s.whatsapp.net';
const CAIO = '100000000000013@lid';
/** 2024-03-04 (a Monday) 12:00 in São Paulo (UTC−3). */
const DAY1 = Date.parse('2024-03-04T15:00:00Z') / 1000;
const DAY = 86_400;

/** Joins, messages (one at 01:00 UTC, still the previous local day), a reply, reactions re-emitted, a phone sender. */
function scenario(): { eventId: string; body: Body }[] {
  const add = (group: string, who: string, t: number): Body => ({
    type: 'group-participants.update',
    chat_jid: group,
    captured_at: new Date(t * 1000).toISOString(),
    payload: { id: group, action: 'add', participants: [{ id: who, admin: null }] },
  });
  const bodies: Body[] = [
    add(G1, ANA, DAY1 - DAY),
    add(G1, BEA, DAY1 - DAY),
    add(G1, CAIO, DAY1 - DAY),
    add(G2, ANA, DAY1 - DAY),
    textMessage({ group: G1, id: 'A1', sender: ANA }, DAY1),
    textMessage({ group: G1, id: 'A2', sender: ANA }, DAY1 + 60, { replyTo: 'A1' }),
    // 01:00 UTC on day 2 is 22:00 on day 1 in São Paulo.
    textMessage({ group: G1, id: 'B1', sender: BEA_PHONE }, DAY1 + 10 * 3600),
    textMessage({ group: G1, id: 'B2', sender: BEA }, DAY1 + DAY),
    textMessage({ group: G2, id: 'A3', sender: ANA }, DAY1 + 7 * DAY),
    reactionEvent({ group: G1, id: 'A1', sender: ANA }, BEA, '👍', (DAY1 + 120) * 1000),
    { type: 'lid-mapping.update', chat_jid: null, payload: { lid: BEA, pn: BEA_PHONE } },
  ];
  return bodies.map((body, index) => ({ eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, body }));
}

const fresh = useFreshLake();
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-report-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const report = (groupJid: string | null = null): Promise<EngagementReport> =>
  readEngagementReport(fresh.lake.pool, {
    groupJid,
    from: '2024-03-01',
    to: '2024-03-20',
    lurkerDays: 7,
    topMembers: 10,
  });

describe('engagement rollups and `wa-lake report`', () => {
  it('counts by local day in São Paulo with phone senders merged into their LID, unchanged by replay, order and rebuild', async () => {
    const events = scenario();
    for (const { eventId, body } of events) await fresh.lake.store(eventId, JSON.stringify(body));
    const daily = await fresh.lake.pool.query(
      `SELECT participant_id, to_char(day, 'YYYY-MM-DD') AS day, messages, replies, reactions_given, reactions_received
         FROM engagement_member_daily WHERE group_jid = $1 ORDER BY participant_id, day`,
      [G1]
    );
    expect(daily.rows).toEqual([
      { participant_id: ANA, day: '2024-03-04', messages: 2, replies: 1, reactions_given: 0, reactions_received: 1 },
      { participant_id: BEA, day: '2024-03-04', messages: 1, replies: 0, reactions_given: 1, reactions_received: 0 },
      { participant_id: BEA, day: '2024-03-05', messages: 1, replies: 0, reactions_given: 0, reactions_received: 0 },
    ]);
    const first = await report();
    expect(first.totals).toEqual({ messages: 5, activeMembers: 2, groups: 2, reactions: 1, joins: 4, leaves: 0 });
    expect(first.activeMembers.find((row) => row.day === '2024-03-05')).toEqual({
      day: '2024-03-05',
      dau: 1,
      wau: 2,
      mau: 2,
    });
    // Joined on Sunday 3 March (week of 26 February): none active that week, 2 of 4 the next, 1 (Ana in G2) the
    // week after, none in the last week of the range (0 % weeks are rows, ADR 0019).
    expect(first.cohorts).toEqual([
      { cohortWeek: '2024-02-26', weekOffset: 0, cohortSize: 4, activeMembers: 0, retention: 0 },
      { cohortWeek: '2024-02-26', weekOffset: 1, cohortSize: 4, activeMembers: 2, retention: 0.5 },
      { cohortWeek: '2024-02-26', weekOffset: 2, cohortSize: 4, activeMembers: 1, retention: 0.25 },
      { cohortWeek: '2024-02-26', weekOffset: 3, cohortSize: 4, activeMembers: 0, retention: 0 },
    ]);
    expect(first.lurkers).toEqual([
      { groupJid: G1, members: 3, lurkers: 3 },
      { groupJid: G2, members: 1, lurkers: 1 },
    ]);
    // Replayed, in reverse order: nothing changes; a rebuild from the raw table gives the same report.
    for (const { eventId, body } of [...events].reverse()) await fresh.lake.store(eventId, JSON.stringify(body));
    expect(await report()).toEqual(first);
    await rebuildProjections(fresh.lake.pool);
    expect(await report()).toEqual(first);
  });

  it('groups a member linked under two ids as one person', async () => {
    await linkMembers(
      fresh.lake.pool,
      [
        { participantId: ANA, memberId: 'discord:42' },
        { participantId: BEA_PHONE, memberId: 'discord:42' },
      ],
      'test'
    );
    const linked = await report();
    expect(linked.totals.activeMembers).toBe(1);
    // One row for the person, carrying both participants and all their messages.
    expect(linked.topMembers).toHaveLength(1);
    expect(linked.topMembers[0]).toMatchObject({ memberId: 'discord:42', messages: linked.totals.messages });
    // One representative id and the list of both, never ids joined into one string.
    expect(linked.topMembers[0]).toMatchObject({ participantId: ANA, participantIds: [ANA, BEA] });
    expect((await report(G2)).totals).toMatchObject({ messages: 1, groups: 1 });
  });

  it('counts the members of a group nobody wrote in as its lurkers, with --group as without', async () => {
    const silent = '120363000000000209@g.us';
    const members = ['100000000000291@lid', '100000000000292@lid'].map((id) => ({ id, admin: null }));
    const payload = { id: silent, subject: 'Silent', participants: members };
    const body = { type: 'groups.metadata', chat_jid: silent, payload, captured_at: '2024-03-04T12:00:00.000Z' };
    await fresh.lake.store('00000000-0000-4000-8000-000000000209', JSON.stringify(body));
    const options = { from: null, to: null, lurkerDays: 7, topMembers: 10 };
    const all = await readEngagementReport(fresh.lake.pool, { ...options, groupJid: null });
    const filtered = await readEngagementReport(fresh.lake.pool, { ...options, groupJid: silent });
    const row = { groupJid: silent, members: 2, lurkers: 2 };
    expect(all.lurkers).toContainEqual(row);
    expect(filtered.lurkers).toEqual([row]);
  });

  it('refuses a range that ends before it starts, also when one end defaulted to the data', async () => {
    const read = (from: string | null, to: string | null): Promise<EngagementReport> =>
      readEngagementReport(fresh.lake.pool, { groupJid: null, from, to, lurkerDays: 7, topMembers: 10 });
    // The lake's activity runs from 2024-03-04 to 2024-03-11 (São Paulo days).
    await expect(read(null, '1999-01-01')).rejects.toThrow(/--from defaulted to the first day with activity/);
    await expect(read('2030-01-01', null)).rejects.toThrow(/--to defaulted to the last day with activity/);
    await expect(read('2024-03-05', '2024-03-04')).rejects.toThrow(/first day must come first/);
    expect((await read(null, '2024-03-04')).totals.messages).toBeGreaterThan(0);
  });

  it('refuses a group the lake has never seen instead of reporting zeros for it', async () => {
    await expect(report('120363000000009999@g.us')).rejects.toBeInstanceOf(UnknownReportGroupError);
    await expect(report('120363000000009999@g.us')).rejects.toThrow(/group 120363000000009999@g.us is not in the lake/);
    // A group known only by its messages is reported.
    expect((await report(G2)).groupJid).toBe(G2);
  });

  it('writes an HTML report whose charts render in headless Chromium with no request and no console error', async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`
      );
    const htmlPath = join(dir, 'report.html');
    expect(await writeReport(await report(), { html: htmlPath })).toContain(htmlPath);
    expect(readFileSync(htmlPath, 'utf8')).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => requests.push(request.url()));
      const fileUrl = pathToFileURL(htmlPath).href;
      await page.goto(fileUrl, { waitUntil: 'load' });
      // Locators, not DOM callbacks: the test's TypeScript has no DOM library.
      const figures = page.locator('figure.chart');
      const charts: { id: string | null; svgs: number; shapes: number; width: number }[] = [];
      for (let i = 0; i < (await figures.count()); i += 1) {
        const figure = figures.nth(i);
        charts.push({
          id: await figure.getAttribute('id'),
          svgs: await figure.locator('svg').count(),
          shapes: await figure.locator('svg path, svg rect, svg text').count(),
          width: (await figure.locator('svg').first().boundingBox())?.width ?? 0,
        });
      }
      expect(charts.map((chart) => chart.id)).toEqual([
        'messages-per-day',
        'active-members',
        'top-members',
        'joins-leaves',
        'cohort-retention',
        'lurkers',
        'newcomer-funnel',
        'levels',
        'activity-hours',
      ]);
      for (const chart of charts) {
        expect(chart.svgs, chart.id ?? '').toBe(1);
        expect(chart.shapes, chart.id ?? '').toBeGreaterThan(5);
        expect(chart.width, chart.id ?? '').toBeGreaterThan(100);
      }
      expect(problems).toEqual([]);
      expect(requests).toEqual([fileUrl]);
    } finally {
      await browser.close();
    }
  });

  it('gives the demo its engagement counts, five summary lines and the report file', async () => {
    const result = await writeDemoEngagement(fresh.url, dir);
    expect(result.engagement).toEqual({
      messages: 5,
      activeMembers: 1,
      groups: 2,
      reactions: 1,
      firstResponseMedianMinutes: null,
      // The first messages of Ana in G1 and G2 and of Bea in G1, newcomers all (they joined the day before), got no
      // reply from anyone else.
      unanswered: 3,
    });
    expect(result.lines).toHaveLength(5);
    expect(result.lines[1]).toContain('5 in 2 groups, 1 reaction');
    expect(existsSync(result.reportPath)).toBe(true);
    expect(readFileSync(result.reportPath, 'utf8')).toContain('<svg');
  });
});
