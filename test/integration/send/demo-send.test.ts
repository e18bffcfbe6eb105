import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runSendDemo } from '../../../cli/demo-send/run-send-demo.js';
import { formatSendDemoSummary } from '../../../cli/demo-send/send-demo-summary.js';
import { createMigratedDatabase } from '../../helpers/lake-databases.js';

describe('wa-lake demo-send', () => {
  let dataDir: string;
  let databaseUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-demo-send-'));
    chmodSync(dataDir, 0o755);
    databaseUrl = await createMigratedDatabase(inject('databaseUrl'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('sends through the whole local stack with faults injected: no duplicate on the wire, one expired, one failed', async () => {
    const { summary, messages } = await runSendDemo({
      dataDir,
      env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
      logger: pino({ level: 'silent' }),
      timeoutMs: 90_000,
    });
    expect(summary.mismatches).toEqual([]);
    expect(summary).toMatchObject({
      ok: true,
      duplicatesOnWire: 0,
      unexpectedWireSends: 0,
      idempotentReplays: 1,
      ownAcksInLake: 0,
    });
    expect(summary.expired).toBeGreaterThanOrEqual(1);
    expect(summary.failed).toBeGreaterThanOrEqual(1);
    expect(summary.accepted).toBe(summary.requested);
    // The slow send reached the wire twice with one WhatsApp id; everything dispatched has exactly one id.
    expect(summary.resentSameId).toBeGreaterThanOrEqual(1);
    expect(summary.distinctWireIds).toBe(summary.dispatched);
    expect(summary.awaitingAck).toBe(1);
    // ADR 0015: the message linking to the demo's local page went out with that page's preview.
    expect([summary.linkSends, summary.linkPreviews]).toEqual([1, 1]);
    expect(messages.find((m) => m.state === 'failed')?.reasonCode).toBe('not_on_whatsapp');
    expect(messages.find((m) => m.state === 'expired')?.reasonCode).toBe('deliver_by_passed');

    // What the user reads: one column of colons for the figures, one column for the message states.
    const lines = formatSendDemoSummary(summary, messages).split('\n');
    const figures = lines.filter((line) => / : /.test(line));
    expect(figures.length).toBeGreaterThanOrEqual(8);
    expect(new Set(figures.map((line) => line.indexOf(' : '))).size).toBe(1);
    const stateColumns = messages.map((m) => {
      const line = lines.find((candidate) => candidate.startsWith(`    ${m.label} `)) ?? '';
      return line.indexOf(` ${m.state}`, 4 + m.label.length - 1);
    });
    expect(new Set(stateColumns).size).toBe(1);
    expect(lines.filter((line) => line !== line.trimEnd())).toEqual([]);
  });
});
