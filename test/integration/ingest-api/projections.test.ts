import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openLake, type TestLake } from '../../helpers/lake-databases.js';

let lake: TestLake;
beforeAll(() => {
  lake = openLake(inject('databaseUrl'));
});
afterAll(async () => {
  await lake.pool.end();
});

const randomDigits = (): string => String(Math.floor(Math.random() * 1e12)).padStart(12, '0');
const newGroup = (): string => `120363${randomDigits()}@g.us`;
const lid = (): string => `1${randomDigits()}@lid`;
const pn = (): string => `55${randomDigits()}@s.whatsapp.net`;
const body = (
  type: string,
  payload: unknown,
  capturedAt = '2024-01-01T00:00:00Z',
  chatJid: string | null = null
): string => JSON.stringify({ type, chat_jid: chatJid, payload, captured_at: capturedAt });
const snapshot = (
  group: string,
  participants: unknown[],
  capturedAt: string,
  extra: Record<string, unknown> = {}
): string =>
  body(
    'groups.metadata',
    { id: group, subject: 'Group', desc: 'about', announce: false, restrict: true, participants, ...extra },
    capturedAt,
    group
  );
const stub = (group: string, stubType: number, participants: unknown[], seconds: number): string =>
  body(
    'messages.upsert',
    {
      key: { remoteJid: group, id: randomUUID(), fromMe: false },
      messageTimestamp: seconds,
      messageStubType: stubType,
      messageStubParameters: participants.map((p) => JSON.stringify(p)),
    },
    undefined,
    group
  );

async function memberships(group: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await lake.pool.query(
    `SELECT participant_id, role, joined_at, left_at FROM whatsapp_group_memberships WHERE group_jid = $1 ORDER BY participant_id`,
    [group]
  );
  return rows as Array<Record<string, unknown>>;
}

describe('projections', () => {
  it('keeps the latest snapshot with every digit of its numbers, as the raw row has them', async () => {
    const group = newGroup();
    const text = snapshot(group, [{ id: lid(), admin: null }], '2024-01-01T00:00:00Z').replace(
      '"subject":"Group"',
      '"subject":"Group","creation":12345678901234567890,"size":9007199254740993'
    );
    await lake.store(randomUUID(), text);
    const { rows } = await lake.pool.query<{ creation: string; size: string }>(
      `SELECT latest_snapshot->>'creation' AS creation, latest_snapshot->>'size' AS size FROM whatsapp_groups WHERE jid = $1`,
      [group]
    );
    expect(rows[0]).toEqual({ creation: '12345678901234567890', size: '9007199254740993' });
  });

  it('projects a groups.metadata snapshot: group fields, LID-first participants with phone aliases, roles', async () => {
    const group = newGroup();
    const [a, b] = [
      { id: lid(), phoneNumber: pn(), admin: 'superadmin' },
      { id: lid(), phoneNumber: pn(), admin: null },
    ];
    await lake.store(randomUUID(), snapshot(group, [a, b], '2024-01-01T00:00:00Z'));
    const { rows: groups } = await lake.pool.query(
      'SELECT subject, description, settings FROM whatsapp_groups WHERE jid = $1',
      [group]
    );
    expect(groups[0]).toMatchObject({
      subject: 'Group',
      description: 'about',
      settings: { announce: false, restrict: true },
    });
    expect(await memberships(group)).toEqual(
      [
        { participant_id: a.id, role: 'superadmin', joined_at: new Date('2024-01-01T00:00:00Z'), left_at: null },
        { participant_id: b.id, role: 'member', joined_at: new Date('2024-01-01T00:00:00Z'), left_at: null },
      ].sort((x, y) => (x.participant_id < y.participant_id ? -1 : 1))
    );
    const { rows: people } = await lake.pool.query(
      'SELECT id, lid, phone_jid FROM whatsapp_participants WHERE id = ANY($1) ORDER BY id',
      [[a.id, b.id]]
    );
    expect(people).toEqual(
      [a, b].map((p) => ({ id: p.id, lid: p.id, phone_jid: p.phoneNumber })).sort((x, y) => (x.id < y.id ? -1 : 1))
    );
    const { rows: lidsInPhone } = await lake.pool.query(
      `SELECT count(*)::int AS n FROM whatsapp_participants WHERE phone_jid LIKE '%@lid'`
    );
    expect(lidsInPhone[0]).toEqual({ n: 0 });
  });

  it('never empties a group from a snapshot without participants', async () => {
    const group = newGroup();
    const member = { id: lid(), admin: null };
    await lake.store(randomUUID(), snapshot(group, [member], '2024-01-01T00:00:00Z'));
    await lake.store(randomUUID(), snapshot(group, [], '2024-02-01T00:00:00Z', { subject: 'Renamed' }));
    expect(await memberships(group)).toEqual([expect.objectContaining({ participant_id: member.id, left_at: null })]);
  });

  it('sets left_at on a leave stub at the event time, clears it on re-entry, and applies promote/demote', async () => {
    const group = newGroup();
    const member = { id: lid(), phoneNumber: pn(), admin: null };
    await lake.store(randomUUID(), stub(group, 27, [member], 1_700_000_000));
    await lake.store(randomUUID(), stub(group, 32, [member], 1_700_000_100));
    expect(await memberships(group)).toEqual([
      {
        participant_id: member.id,
        role: 'member',
        joined_at: new Date(1_700_000_000_000),
        left_at: new Date(1_700_000_100_000),
      },
    ]);
    await lake.store(randomUUID(), stub(group, 27, [member], 1_700_000_200));
    // The promote as Baileys reports it: the timed stub, and the derived hint (ADR 0007: the stub decides).
    await lake.store(randomUUID(), stub(group, 29, [{ ...member, admin: 'admin' }], 1_700_000_300));
    await lake.store(
      randomUUID(),
      body(
        'group-participants.update',
        { id: group, participants: [member], action: 'promote' },
        '2023-11-14T22:20:00Z',
        group
      )
    );
    expect(await memberships(group)).toEqual([
      { participant_id: member.id, role: 'admin', joined_at: new Date(1_700_000_200_000), left_at: null },
    ]);
  });

  it('counts no join for a role change of a member a snapshot listed, and a join and a leave for an add and a remove', async () => {
    const group = newGroup();
    const [listed, added, removed] = [lid(), lid(), lid()];
    const change = (action: string, who: string, at: string): string =>
      body('group-participants.update', { id: group, participants: [{ id: who, admin: null }], action }, at, group);
    await lake.store(
      randomUUID(),
      snapshot(
        group,
        [
          { id: listed, admin: null },
          { id: removed, admin: null },
        ],
        '2024-05-01T10:00:00Z'
      )
    );
    await lake.store(randomUUID(), change('promote', listed, '2024-05-01T10:03:00Z'));
    await lake.store(randomUUID(), change('add', added, '2024-05-01T10:04:00Z'));
    await lake.store(randomUUID(), change('remove', removed, '2024-05-01T10:05:00Z'));
    await lake.store(randomUUID(), change('demote', listed, '2024-05-01T10:06:00Z'));
    const { rows } = await lake.pool.query(
      `SELECT participant_id, change FROM engagement_membership_changes WHERE group_jid = $1 ORDER BY at`,
      [group]
    );
    expect(rows).toEqual([
      { participant_id: added, change: 'join' },
      { participant_id: removed, change: 'leave' },
    ]);
  });

  it('marks members missing from a newer snapshot as left at the snapshot time, in any order of arrival', async () => {
    const group = newGroup();
    const [a, b] = [
      { id: lid(), admin: null },
      { id: lid(), admin: null },
    ];
    await lake.store(randomUUID(), snapshot(group, [a], '2024-03-01T00:00:00Z'));
    await lake.store(randomUUID(), snapshot(group, [a, b], '2024-02-01T00:00:00Z'));
    expect((await memberships(group)).find((row) => row['participant_id'] === b.id)).toMatchObject({
      left_at: new Date('2024-03-01T00:00:00Z'),
    });
  });

  it('feeds the phone alias of a LID from lid-mapping.update, never putting a LID in a phone column', async () => {
    const [someLid, somePn] = [lid(), pn()];
    await lake.store(randomUUID(), body('lid-mapping.update', { lid: someLid, pn: somePn }));
    await lake.store(randomUUID(), body('lid-mapping.update', { lid: someLid, pn: lid() }));
    const { rows } = await lake.pool.query('SELECT id, lid, phone_jid FROM whatsapp_participants WHERE id = $1', [
      someLid,
    ]);
    expect(rows).toEqual([{ id: someLid, lid: someLid, phone_jid: somePn }]);
  });

  it('records a projection error and still stores the raw row', async () => {
    const group = newGroup();
    const eventId = randomUUID();
    const status = await lake.store(eventId, stub(group, 27, [{ id: `${'9'.repeat(300)}@lid` }], 1_700_000_000));
    expect(status).toBe('stored');
    const raw = await lake.pool.query('SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE event_id = $1', [
      eventId,
    ]);
    const errors = await lake.pool.query(
      'SELECT type, error_code FROM whatsapp_projection_errors WHERE event_id = $1',
      [eventId]
    );
    expect(raw.rows[0]).toEqual({ n: 1 });
    expect(errors.rows).toEqual([{ type: 'messages.upsert', error_code: '22001' }]);
  });
});
