import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { runCollector, type CollectorHandle } from '../../../collector/run-collector.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { createDoubleFactory, GROUP_A, type SocketDouble } from '../../helpers/socket-double.js';
import {
  collectorConfigIn,
  createRecordingAlertSink,
  createRecordingLogger,
  createTempDir,
} from '../../helpers/collector-test-kit.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const message = (id: string) => ({
  type: 'notify' as const,
  messages: [
    {
      key: { remoteJid: GROUP_A, fromMe: false, id, participant: '100000000000001@lid' },
      messageTimestamp: Math.floor(Date.now() / 1000),
      message: { conversation: `message ${id}` },
    },
  ],
});

const fresh = useFreshLake();

/** One linked account: its own auth, outbox and socket double (only WhatsApp is faked). */
async function startAccount(
  dir: string,
  selfJid: string
): Promise<{ collector: CollectorHandle; socket: SocketDouble }> {
  const doubles = createDoubleFactory();
  const collector = await runCollector({
    config: collectorConfigIn(dir, { COVERAGE_HEARTBEAT_INTERVAL_MS: '60000' }),
    logger: createRecordingLogger().logger,
    alertSink: createRecordingAlertSink().sink,
    temporalClient: null,
    source: { kind: 'live' },
    socketFactory: doubles.factory,
  });
  await vi.waitFor(() => expect(doubles.sockets).toHaveLength(1));
  const socket = doubles.sockets[0]!;
  Object.assign(socket, { user: { id: selfJid } });
  socket.ev.emit('connection.update', { connection: 'open' });
  await vi.waitFor(() =>
    expect(collector.outbox.listDue(100, Date.now() + 1).some((row) => row.type === 'collector.session')).toBe(true)
  );
  return { collector, socket };
}

/** Everything a stopped collector's outbox holds, stored in the lake as the worker would deliver it. */
async function deliver(dir: string): Promise<void> {
  const outbox = OutboxStore.open({ path: join(dir, 'outbox.sqlite') });
  try {
    for (const row of outbox.listDue(1000, Date.now() + 1)) await fresh.lake.store(row.eventId, row.body);
  } finally {
    outbox.close();
  }
}

describe('two linked accounts in the same groups (ADR 0016)', () => {
  it('feed one lake: a message both saw is one row, one down loses nothing the other saw, coverage combines', async () => {
    const dirA = createTempDir('account-a');
    const dirB = createTempDir('account-b');
    cleanups.push(dirA.cleanup, dirB.cleanup);
    const a = await startAccount(dirA.dir, '5500000000011:3@s.whatsapp.net');
    cleanups.push(() => a.collector.stop());
    let b = await startAccount(dirB.dir, '5500000000022:4@s.whatsapp.net');
    a.socket.ev.emit('messages.upsert', message('BOTH-1'));
    b.socket.ev.emit('messages.upsert', message('BOTH-1'));
    // B is killed for a window: only A sees ONLY-A.
    await b.collector.stop();
    a.socket.ev.emit('messages.upsert', message('ONLY-A'));
    b = await startAccount(dirB.dir, '5500000000022:4@s.whatsapp.net');
    cleanups.push(() => b.collector.stop());
    b.socket.ev.emit('messages.upsert', message('ONLY-B'));
    a.socket.ev.emit('messages.upsert', message('BOTH-2'));
    b.socket.ev.emit('messages.upsert', message('BOTH-2'));
    await a.collector.stop();
    await b.collector.stop();
    await deliver(dirA.dir);
    await deliver(dirB.dir);

    const { rows } = await fresh.lake.pool.query<{ id: string; copies: number }>(
      `SELECT payload->'key'->>'id' AS id, count(*)::int AS copies FROM whatsapp_event_logs
        WHERE chat_jid = $1 AND type = 'messages.upsert' GROUP BY 1 ORDER BY 1`,
      [GROUP_A]
    );
    expect(rows).toEqual([
      { id: 'BOTH-1', copies: 1 },
      { id: 'BOTH-2', copies: 1 },
      { id: 'ONLY-A', copies: 1 },
      { id: 'ONLY-B', copies: 1 },
    ]);
    const perAccount = await fresh.lake.pool.query<{ account_jid: string; periods: number }>(
      `SELECT account_jid, count(*)::int AS periods FROM whatsapp_coverage WHERE group_jid = $1 GROUP BY 1 ORDER BY 1`,
      [GROUP_A]
    );
    expect(perAccount.rows).toEqual([
      { account_jid: '5500000000011@s.whatsapp.net', periods: 1 },
      { account_jid: '5500000000022@s.whatsapp.net', periods: 2 },
    ]);
    // B's gap lies inside A's period: per group, the time is observed as one period from the first open to the last close.
    const group = await fresh.lake.pool.query(
      `SELECT started_at, ended_at FROM whatsapp_group_coverage WHERE group_jid = $1`,
      [GROUP_A]
    );
    const span = await fresh.lake.pool.query(
      `SELECT min(started_at) AS started_at, max(ended_at) AS ended_at FROM whatsapp_coverage WHERE group_jid = $1`,
      [GROUP_A]
    );
    expect(group.rows).toEqual(span.rows);
  });
});
