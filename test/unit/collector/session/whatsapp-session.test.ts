import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Alert, AlertSink } from '../../../../common/alert-sink.js';
import { WhatsAppSession, type WhatsAppSessionOptions } from '../../../../collector/session/whatsapp-session.js';
import { createDoubleFactory, GROUP_A, GROUP_B } from '../../../helpers/socket-double.js';

interface Harness {
  session: WhatsAppSession;
  events: Array<{ event: string; data: unknown }>;
  alerts: Alert[];
  logs: Array<Record<string, unknown>>;
  written: string[];
  doubles: ReturnType<typeof createDoubleFactory>;
}

const sessions: WhatsAppSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.stop()));
});

function startSession(overrides: Partial<WhatsAppSessionOptions> = {}): Harness {
  const events: Harness['events'] = [];
  const alerts: Alert[] = [];
  const logs: Harness['logs'] = [];
  const written: string[] = [];
  const doubles = createDoubleFactory();
  const alertSink: AlertSink = { send: (alert) => Promise.resolve(alerts.push(alert) > 0) };
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) }
  );
  const session = new WhatsAppSession({
    socketFactory: doubles.factory,
    onEvent: (event, data) => void events.push({ event, data }),
    logger,
    alertSink,
    authDir: '/tmp/wa-lake-test-auth',
    reconnect: { baseDelayMs: 1, maxDelayMs: 4, windowMs: 60_000 },
    downAlertMs: 60_000,
    replacedAlertCount: 2,
    write: (text) => void written.push(text),
    ...overrides,
  });
  sessions.push(session);
  session.start();
  return { session, events, alerts, logs, written, doubles };
}

const groupMessage = {
  type: 'notify' as const,
  messages: [
    {
      key: { remoteJid: GROUP_A, fromMe: false, id: '3EB0A0000000000000000001', participant: '100000000000001@lid' },
      messageTimestamp: 1700000000,
      message: { conversation: 'hello group' },
    },
  ],
};

describe('WhatsAppSession', () => {
  it('hands every event but creds.update to the sink and only saves the credentials', async () => {
    const h = startSession();
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(1));
    const socket = h.doubles.sockets[0]!;
    socket.ev.emit('creds.update', { me: { id: '5500000000009:12@s.whatsapp.net', name: 'secret-bearing' } });
    socket.ev.emit('messages.upsert', groupMessage);
    socket.ev.emit('presence.update', { id: GROUP_A, presences: {} });
    expect(h.events.map((e) => e.event)).toEqual(['messages.upsert', 'presence.update']);
    await vi.waitFor(() => expect(h.doubles.saveCreds).toHaveBeenCalledTimes(1));
    expect(JSON.stringify(h.events) + JSON.stringify(h.logs)).not.toContain('secret-bearing');
  });

  it('emits one groups.metadata event per group on every open', async () => {
    const h = startSession();
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(1));
    h.doubles.sockets[0]!.ev.emit('connection.update', { connection: 'open' });
    await vi.waitFor(() => expect(h.events.filter((e) => e.event === 'groups.metadata')).toHaveLength(2));
    h.doubles.sockets[0]!.close(428);
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(2));
    h.doubles.sockets[1]!.ev.emit('connection.update', { connection: 'open' });
    await vi.waitFor(() => expect(h.events.filter((e) => e.event === 'groups.metadata')).toHaveLength(4));
    const ids = h.events.filter((e) => e.event === 'groups.metadata').map((e) => (e.data as { id: string }).id);
    expect(ids.sort()).toEqual([GROUP_A, GROUP_A, GROUP_B, GROUP_B]);
    expect(h.session.state).toBe('open');
  });

  it('stops on 401 with an instruction to re-link and does not reconnect', async () => {
    const h = startSession();
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(1));
    h.doubles.sockets[0]!.close(401);
    await expect(h.session.stopped).resolves.toBe('logged_out');
    expect(h.session.state).toBe('logged_out');
    expect(h.alerts.map((a) => a.kind)).toEqual(['session_logged_out']);
    expect(h.alerts[0]!.message).toContain('/tmp/wa-lake-test-auth');
    expect(h.doubles.sockets).toHaveLength(1);
  });

  it('alerts that another instance uses the session when 440 repeats', async () => {
    const h = startSession();
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(1));
    h.doubles.sockets[0]!.close(440);
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(2));
    expect(h.alerts).toEqual([]);
    h.doubles.sockets[1]!.close(440);
    await vi.waitFor(() => expect(h.alerts.map((a) => a.kind)).toContain('session_replaced'));
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(3));
  });

  it('waits at least 30 s before the reconnect after the third 440 within a minute, and alerts', async () => {
    const clock = { now: 1_000_000 };
    const h = startSession({ now: () => clock.now, replacedAlertCount: 99 });
    for (let i = 0; i < 3; i += 1) {
      await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(i + 1));
      clock.now += 5_000;
      h.doubles.sockets[i]!.close(440);
    }
    const delays = h.logs
      .filter((log) => log.msg === 'whatsapp connection closed; reconnecting')
      .map((log) => log.delayMs);
    expect(delays).toHaveLength(3);
    expect(delays[1]).toBeLessThan(30_000);
    expect(delays[2]).toBeGreaterThanOrEqual(30_000);
    expect(h.alerts.map((a) => a.kind)).toEqual(['session_replaced']);
    expect(h.doubles.sockets).toHaveLength(3);
  });

  it('says plainly that WhatsApp cannot be reached and keeps retrying without network', async () => {
    const h = startSession();
    for (let attempt = 1; attempt <= 3; attempt++) {
      await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(attempt));
      h.doubles.sockets[attempt - 1]!.close(408, { code: 'ENOTFOUND' });
    }
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(4));
    const networkLogs = h.logs.filter((log) => log['msg'] === 'cannot reach whatsapp (no network?); retrying');
    expect(networkLogs).toHaveLength(3);
    expect(networkLogs[0]).toMatchObject({ errorCode: 'ENOTFOUND', statusCode: 408 });
    const closes = h.events.filter((e) => e.event === 'connection.update').map((e) => JSON.stringify(e.data));
    expect(closes[0]).toContain('"output":{"statusCode":408}');
    expect(closes[0]).toContain('"code":"ENOTFOUND"');
  });

  it('alerts session_down when WhatsApp stays unreachable, and never calls it flapping', async () => {
    const h = startSession({ downAlertMs: 30 });
    for (let attempt = 1; attempt <= 7; attempt++) {
      await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(attempt));
      h.doubles.sockets[attempt - 1]!.close(408, { code: 'ECONNREFUSED' });
    }
    await vi.waitFor(() => expect(h.alerts.map((a) => a.kind)).toContain('session_down'));
    expect(h.alerts.map((a) => a.kind)).not.toContain('session_unstable');
  });

  it('prints the QR code, or requests a pairing code when a phone is given', async () => {
    const qr = startSession();
    await vi.waitFor(() => expect(qr.doubles.sockets).toHaveLength(1));
    qr.doubles.sockets[0]!.ev.emit('connection.update', { qr: '2@synthetic-qr-ref,noise,identity,adv' });
    expect(qr.written.join('')).toContain('Scan this QR code');
    expect(qr.session.state).toBe('waiting_for_link');
    expect(JSON.stringify(qr.events)).not.toContain('synthetic-qr-ref');

    const paired = startSession({ pairPhone: '5500000000009' });
    await vi.waitFor(() => expect(paired.doubles.sockets).toHaveLength(1));
    paired.doubles.sockets[0]!.ev.emit('connection.update', { qr: '2@synthetic-qr-ref' });
    paired.doubles.sockets[0]!.ev.emit('connection.update', { qr: '2@synthetic-qr-ref-2' });
    await vi.waitFor(() => expect(paired.written.join('')).toContain('ABCD-1234'));
    expect(paired.doubles.sockets[0]!.requestPairingCode).toHaveBeenCalledTimes(1);
    expect(paired.doubles.sockets[0]!.requestPairingCode).toHaveBeenCalledWith('5500000000009');
  });

  it('stop() ends the socket, clears the reconnect timer and ignores later events', async () => {
    const h = startSession({ reconnect: { baseDelayMs: 60_000, maxDelayMs: 60_000, windowMs: 60_000 } });
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(1));
    h.doubles.sockets[0]!.close(428);
    expect(h.session.state).toBe('reconnecting');
    await h.session.stop();
    await expect(h.session.stopped).resolves.toBe('stopped');
    h.doubles.sockets[0]!.ev.emit('messages.upsert', groupMessage);
    expect(h.events.filter((e) => e.event === 'messages.upsert')).toHaveLength(0);
    expect(h.doubles.sockets).toHaveLength(1);
  });

  it('reports the own JID without the device suffix while connected', async () => {
    const h = startSession();
    await vi.waitFor(() => expect(h.doubles.sockets).toHaveLength(1));
    expect(h.session.getSelfJid()).toBe('5500000000009@s.whatsapp.net');
  });
});
