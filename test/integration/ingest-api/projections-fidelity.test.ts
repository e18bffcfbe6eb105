import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { SETTINGS_STUB_TYPES } from '../../../lake/projections/stub-types.js';
import { readProjections, useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';

// Two fresh lakes: the fixed JIDs below are stored in both, in opposite orders of arrival.
const fresh = useFreshLakes(2);
const lakeAt = (index: number): TestLake => fresh.at(index).lake;
const randomDigits = (): string => String(Math.floor(Math.random() * 1e12)).padStart(12, '0');
const newGroup = (): string => `120363${randomDigits()}@g.us`;
const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();
const body = (type: string, chatJid: string | null, payload: unknown, capturedAt: string, extra = {}): string =>
  JSON.stringify({ type, chat_jid: chatJid, payload, captured_at: capturedAt, ...extra });
/** A stub message as the collector sends it: its own time is `messageTimestamp` (seconds). */
const stub = (group: string, stubType: number, parameters: string[], seconds: number, extra = {}): string =>
  body(
    'messages.upsert',
    group,
    {
      key: { remoteJid: group, id: randomUUID(), fromMe: false },
      messageTimestamp: seconds,
      messageStubType: stubType,
      messageStubParameters: parameters,
    },
    iso(seconds + 60),
    { upsert_type: 'notify', ...extra }
  );

/** Stores the deliveries in the given order into lake 0 and in reverse order into lake 1. */
async function storeBothOrders(deliveries: string[]): Promise<void> {
  const withIds = deliveries.map((text) => ({ id: randomUUID(), text }));
  for (const delivery of withIds) await lakeAt(0).store(delivery.id, delivery.text);
  for (const delivery of [...withIds].reverse()) await lakeAt(1).store(delivery.id, delivery.text);
}

async function readGroup(lake: TestLake, group: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await lake.pool.query<Record<string, unknown>>(
    'SELECT subject, description, settings, field_versions FROM whatsapp_groups WHERE jid = $1',
    [group]
  );
  return rows[0];
}

async function readUnobserved(lake: TestLake, group: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await lake.pool.query<Record<string, unknown>>(
    'SELECT started_at, ended_at FROM whatsapp_group_unobserved_periods WHERE group_jid = $1 ORDER BY started_at',
    [group]
  );
  return rows;
}

async function readMemberships(lake: TestLake, group: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await lake.pool.query<Record<string, unknown>>(
    `SELECT participant_id, role, joined_at, left_at FROM whatsapp_group_memberships WHERE group_jid = $1 ORDER BY participant_id`,
    [group]
  );
  return rows;
}

describe('a timed stub always beats an untimed hint (ADR 0007)', () => {
  it('keeps the subject of the later stub when the flush hint restates the first one', async () => {
    const group = '120363000000000018@g.us';
    await storeBothOrders([
      stub(group, 21, ['Name1'], 1_700_018_000),
      stub(group, 21, ['Name2'], 1_700_018_030),
      // Baileys keeps only the first groups.update per group and flush; it has no time of its own.
      body('groups.update', group, { id: group, subject: 'Name1' }, iso(1_700_018_031)),
    ]);
    for (const lake of fresh.lakes) expect(await readGroup(lake, group)).toMatchObject({ subject: 'Name2' });
  });

  it('ends an offline leave → rejoin → leave at the last stub, whatever the hints say', async () => {
    const group = newGroup();
    const member = { id: `1${randomDigits()}@lid`, phoneNumber: `55${randomDigits()}@s.whatsapp.net`, admin: null };
    const parameter = JSON.stringify(member);
    const hint = (action: string): string =>
      body('group-participants.update', group, { id: group, action, participants: [member] }, iso(1_700_040_300));
    await storeBothOrders([
      hint('remove'),
      hint('add'),
      hint('remove'),
      stub(group, 32, [parameter], 1_700_040_000),
      stub(group, 27, [parameter], 1_700_040_100),
      stub(group, 32, [parameter], 1_700_040_200),
    ]);
    for (const lake of fresh.lakes)
      expect(await readMemberships(lake, group)).toEqual([
        {
          participant_id: member.id,
          role: 'member',
          joined_at: new Date(1_700_040_100_000),
          left_at: new Date(1_700_040_200_000),
        },
      ]);
  });

  it('ranks description and settings the same way: a later-captured hint does not undo a stub', async () => {
    const group = newGroup();
    await storeBothOrders([
      stub(group, 24, ['rules v2'], 1_700_050_100),
      stub(group, 26, ['off'], 1_700_050_100),
      body('groups.update', group, { id: group, desc: 'rules v1', announce: true }, iso(1_700_050_500)),
    ]);
    for (const lake of fresh.lakes)
      expect(await readGroup(lake, group)).toMatchObject({
        description: 'rules v2',
        settings: { announce: false },
      });
  });

  it('ranks a groups.update with its own time (subjectTime) as timed: the newer one wins', async () => {
    const group = newGroup();
    await storeBothOrders([
      stub(group, 21, ['From stub'], 1_700_055_000),
      body(
        'groups.update',
        group,
        { id: group, subject: 'From update', subjectTime: 1_700_055_100 },
        iso(1_700_055_200)
      ),
      body('groups.update', group, { id: group, inviteCode: 'HINTCODE' }, iso(1_700_055_300)),
    ]);
    for (const lake of fresh.lakes)
      expect(await readGroup(lake, group)).toMatchObject({
        subject: 'From update',
        settings: { inviteCode: 'HINTCODE' },
      });
  });

  it('still applies a hint when no timed fact states the field', async () => {
    const group = newGroup();
    await storeBothOrders([body('groups.update', group, { id: group, restrict: true }, iso(1_700_060_000))]);
    for (const lake of fresh.lakes)
      expect(await readGroup(lake, group)).toMatchObject({ settings: { restrict: true } });
  });
});

describe('every kind of settings change reaches whatsapp_groups at its own time (ADR 0007)', () => {
  it('reads the disappearing-messages timer from a protocol message (type 3)', async () => {
    const group = '120363000000000023@g.us';
    const seconds = 1_796_026_200;
    await storeBothOrders([
      body(
        'messages.upsert',
        group,
        {
          key: { remoteJid: group, id: '3EB0A0000000000000000023', fromMe: false, participant: '20000000000023@lid' },
          messageTimestamp: seconds,
          message: { protocolMessage: { type: 3, ephemeralExpiration: 604800 } },
        },
        iso(seconds + 5),
        { upsert_type: 'append' }
      ),
    ]);
    for (const lake of fresh.lakes) {
      const row = await readGroup(lake, group);
      expect(row).toMatchObject({ settings: { ephemeralDuration: 604800 } });
      expect((row?.['field_versions'] as Record<string, string>)['ephemeralDuration']).toMatch(
        new RegExp(`^1\\|0*${seconds * 1000}\\|`)
      );
    }
  });

  /** A parameter per reader kind, and the value the projection must show for it. */
  const SAMPLES: Record<string, { newer: string; older: string; expected: unknown }> = {
    subject: { newer: 'New name', older: 'Old name', expected: 'New name' },
    description: { newer: 'New rules', older: 'Old rules', expected: 'New rules' },
    inviteCode: { newer: 'CODE2', older: 'CODE1', expected: 'CODE2' },
    ephemeralDuration: { newer: '86400', older: '604800', expected: 86400 },
    memberAddMode: { newer: 'all_member_add', older: 'admin_add', expected: true },
    linkedParent: { newer: '120363999999999999@g.us', older: '120363888888888888@g.us', expected: null },
    memberLinkMode: { newer: 'all_member_link', older: 'admin_link', expected: 'all_member_link' },
    memberShareGroupHistoryMode: { newer: 'all_member_share', older: 'admin_share', expected: 'all_member_share' },
  };
  const onOff = { newer: 'on', older: 'off', expected: true };

  it.each(SETTINGS_STUB_TYPES.map((entry) => [entry.stubType, entry.name, entry.field] as const))(
    'stub %i (%s) writes %s, and an older stub does not override it',
    async (stubType, name, field) => {
      const group = newGroup();
      const sample = SAMPLES[field] ?? onOff;
      // Unlinking a parent states no value: the newer stub is the unlink, the older one a link.
      const isUnlink = name === 'COMMUNITY_UNLINK_PARENT_GROUP';
      const older = isUnlink
        ? stub(group, 134, [sample.older], 1_700_070_000)
        : stub(group, stubType, [sample.older], 1_700_070_000);
      await storeBothOrders([stub(group, stubType, [sample.newer], 1_700_070_100), older]);
      const expected = isUnlink || name !== 'COMMUNITY_LINK_PARENT_GROUP' ? sample.expected : sample.newer;
      for (const lake of fresh.lakes) {
        const row = await readGroup(lake, group);
        const value =
          field === 'subject' || field === 'description'
            ? row?.[field]
            : (row?.['settings'] as Record<string, unknown> | undefined)?.[field];
        expect(value).toEqual(expected);
        expect((row?.['field_versions'] as Record<string, string>)[field]).toMatch(/^1\|0*1700070100000\|/);
      }
    }
  );
});

describe('a partial snapshot removes no one (architecture.md §9, ADR 0007)', () => {
  it('adds and updates the members it lists and sets no left_at; a complete one still removes', async () => {
    const group = newGroup();
    const [a, b, c] = [0, 1, 2].map(() => `1${randomDigits()}@lid`) as [string, string, string];
    const snapshot = (participants: Array<{ id: string; admin: string | null }>, size: number, at: number): string =>
      body('groups.metadata', group, { id: group, subject: 'Community news', size, participants }, iso(at));
    await storeBothOrders([
      snapshot(
        [
          { id: a, admin: null },
          { id: b, admin: null },
          { id: c, admin: null },
        ],
        3,
        1_700_080_000
      ),
      // Community announcement group seen by a non-admin: only the admins, out of 3.
      snapshot([{ id: a, admin: 'admin' }], 3, 1_700_080_100),
    ]);
    for (const lake of fresh.lakes) {
      const rows = await readMemberships(lake, group);
      expect(rows.map((row) => [row['participant_id'], row['role'], row['left_at']])).toEqual(
        [
          [a, 'admin', null],
          [b, 'member', null],
          [c, 'member', null],
        ].sort((x, y) => ((x[0] ?? '') < (y[0] ?? '') ? -1 : 1))
      );
    }
    await storeBothOrders([
      snapshot(
        [
          { id: a, admin: 'admin' },
          { id: b, admin: null },
        ],
        2,
        1_700_080_200
      ),
    ]);
    for (const lake of fresh.lakes) {
      const left = (await readMemberships(lake, group)).find((row) => row['participant_id'] === c);
      expect(left?.['left_at']).toEqual(new Date(1_700_080_200_000));
    }
  });
});

describe("the account's own removal (ADR 0007)", () => {
  it('marks the group as not observed from the removal and observed again when re-added; rebuild agrees', async () => {
    const group = newGroup();
    const account = { id: `1${randomDigits()}@lid`, phoneNumber: `55${randomDigits()}@s.whatsapp.net`, admin: null };
    const other = JSON.stringify({ id: `1${randomDigits()}@lid`, admin: null });
    const accountJid = { account_jid: account.phoneNumber };
    await storeBothOrders([
      stub(group, 27, [other], 1_700_090_000, accountJid),
      stub(group, 28, [JSON.stringify(account)], 1_700_090_100, accountJid),
    ]);
    for (const lake of fresh.lakes)
      expect(await readUnobserved(lake, group)).toEqual([{ started_at: new Date(1_700_090_100_000), ended_at: null }]);
    await storeBothOrders([stub(group, 27, [JSON.stringify(account)], 1_700_090_500, accountJid)]);
    for (const lake of fresh.lakes)
      expect(await readUnobserved(lake, group)).toEqual([
        { started_at: new Date(1_700_090_100_000), ended_at: new Date(1_700_090_500_000) },
      ]);
  });

  it('counts a leave stub the account sent itself (fromMe) as its own leave, without account_jid', async () => {
    const group = newGroup();
    const leave = JSON.parse(
      stub(group, 32, [JSON.stringify({ id: `1${randomDigits()}@lid`, admin: null })], 1_700_091_000)
    ) as {
      payload: { key: { fromMe: boolean } };
    };
    leave.payload.key.fromMe = true;
    await storeBothOrders([JSON.stringify(leave)]);
    for (const lake of fresh.lakes)
      expect(await readUnobserved(lake, group)).toEqual([{ started_at: new Date(1_700_091_000_000), ended_at: null }]);
  });
});

describe('identity from every message', () => {
  async function readIdentity(lake: TestLake, lid: string): Promise<unknown> {
    const aliases = await lake.pool.query('SELECT lid, phone_jid FROM whatsapp_lid_aliases WHERE lid = $1', [lid]);
    const people = await lake.pool.query('SELECT id, lid, phone_jid FROM whatsapp_participants WHERE id = $1', [lid]);
    return { aliases: aliases.rows, people: people.rows };
  }
  const message = (payload: Record<string, unknown>, type = 'messages.upsert'): string =>
    body(type, '120363000000000001@g.us', payload, iso(1_700_100_000), { upsert_type: 'notify' });

  it('records the alias and the participant of a plain text message (key.participant + participantAlt)', async () => {
    await storeBothOrders([
      message({
        key: {
          remoteJid: '120363000000000001@g.us',
          id: '3EB0A0000000000000006',
          fromMe: false,
          participant: '20000000000001@lid',
          participantAlt: '10000000001@s.whatsapp.net',
        },
        messageTimestamp: 1_700_100_000,
        message: { conversation: 'hello' },
      }),
    ]);
    for (const lake of fresh.lakes)
      expect(await readIdentity(lake, '20000000000001@lid')).toEqual({
        aliases: [{ lid: '20000000000001@lid', phone_jid: '10000000001@s.whatsapp.net' }],
        people: [{ id: '20000000000001@lid', lid: '20000000000001@lid', phone_jid: '10000000001@s.whatsapp.net' }],
      });
  });

  it('reads reaction keys, contextInfo and remoteJidAlt, concurrently through the batch path', async () => {
    const [reactor, author, quoted, direct] = [0, 1, 2, 3].map(() => ({
      lid: `2${randomDigits()}@lid`,
      pn: `1${randomDigits()}@s.whatsapp.net`,
    })) as Array<{ lid: string; pn: string }>;
    if (!reactor || !author || !quoted || !direct) throw new Error('people');
    const group = newGroup();
    const deliveries = [
      message(
        {
          key: { remoteJid: group, id: randomUUID(), participant: author.lid, participantAlt: author.pn },
          reaction: {
            key: { remoteJid: group, id: randomUUID(), participant: reactor.lid, participantAlt: reactor.pn },
            text: '👍',
            senderTimestampMs: 1_700_100_000_000,
          },
        },
        'messages.reaction'
      ),
      message({
        key: { remoteJid: group, id: randomUUID(), participant: author.lid },
        messageTimestamp: 1_700_100_001,
        message: {
          extendedTextMessage: {
            text: 'reply',
            contextInfo: { stanzaId: 'Q1', participant: quoted.lid, participantAlt: quoted.pn },
          },
        },
      }),
      message({
        key: { remoteJid: direct.lid, remoteJidAlt: direct.pn, id: randomUUID(), fromMe: false },
        messageTimestamp: 1_700_100_002,
        message: { conversation: 'direct' },
      }),
    ];
    const lake = lakeAt(0);
    await Promise.all(deliveries.map((delivery) => lake.store(randomUUID(), delivery)));
    for (const person of [reactor, author, quoted, direct])
      expect(await readIdentity(lake, person.lid)).toEqual({
        aliases: [{ lid: person.lid, phone_jid: person.pn }],
        people: [{ id: person.lid, lid: person.lid, phone_jid: person.pn }],
      });
  });

  it('merges a phone-only member into the LID a later message pairs it with', async () => {
    const group = newGroup();
    const [lid, phone] = [`2${randomDigits()}@lid`, `1${randomDigits()}@s.whatsapp.net`];
    await storeBothOrders([
      stub(group, 27, [phone], 1_700_110_000),
      message({
        key: { remoteJid: group, id: randomUUID(), participant: lid, participantAlt: phone },
        messageTimestamp: 1_700_110_100,
        message: { conversation: 'hi' },
      }),
    ]);
    for (const lake of fresh.lakes)
      expect((await readMemberships(lake, group)).map((row) => row['participant_id'])).toEqual([lid]);
  });

  it('stores every row of a batch and records a projection error only for the message it cannot project', async () => {
    const group = newGroup();
    const good = `2${randomDigits()}@lid`;
    const bad = `${'9'.repeat(300)}@lid`;
    const lake = lakeAt(0);
    const ids = [randomUUID(), randomUUID()];
    const statuses = await Promise.all(
      [good, bad].map((participant, index) =>
        lake.store(
          ids[index] ?? '',
          message({
            key: {
              remoteJid: group,
              id: randomUUID(),
              participant,
              participantAlt: `1${randomDigits()}@s.whatsapp.net`,
            },
            messageTimestamp: 1_700_120_000,
            message: { conversation: 'x' },
          })
        )
      )
    );
    expect(statuses).toEqual(['stored', 'stored']);
    const errors = await lake.pool.query(
      'SELECT event_id, error_code FROM whatsapp_projection_errors WHERE event_id = ANY($1::uuid[])',
      [ids]
    );
    expect(errors.rows).toEqual([{ event_id: ids[1], error_code: '22001' }]);
    expect(await readIdentity(lake, good)).toMatchObject({ people: [{ id: good }] });
  });
});

describe('rebuild', () => {
  it('reproduces every projection of this file, including ranks, partial snapshots and unobserved periods', async () => {
    const lake = lakeAt(0);
    const { rows } = await lake.pool.query<{ jid: string }>('SELECT jid FROM whatsapp_groups ORDER BY jid');
    const groups = rows.map((row) => row.jid);
    const readAll = async (): Promise<unknown> => ({
      ...(await readProjections(lake.pool, groups)),
      versions: (await lake.pool.query('SELECT jid, field_versions FROM whatsapp_groups ORDER BY jid')).rows,
      periods: (await lake.pool.query('SELECT * FROM whatsapp_group_unobserved_periods ORDER BY group_jid, started_at'))
        .rows,
    });
    const incremental = await readAll();
    await rebuildProjections(lake.pool);
    expect(await readAll()).toEqual(incremental);
  });
});
