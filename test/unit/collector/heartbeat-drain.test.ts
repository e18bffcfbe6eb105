import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Heartbeat, readCollectorStatus, type CollectorSnapshot } from '../../../collector/heartbeat.js';
import { createRootLogger } from '../../../common/logger.js';
import { silentLogger } from '../../helpers/silent-logger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('Heartbeat: drain rate and history import in the status file (ADR 0016)', () => {
  it('measures the outbox drain between beats, and refresh rewrites the import without a new beat', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-heartbeat-'));
    dirs.push(dir);
    const statusPath = join(dir, 'status.json');
    let now = Date.parse('2026-12-01T10:00:00Z');
    let started = 100;
    let items = 0;
    const snapshot = (): CollectorSnapshot => ({
      mode: 'live',
      sessionState: 'open',
      sessionStateSince: '2026-12-01T09:00:00.000Z',
      outbox: { pending: 600, started, dead: 0 },
      oldestPendingAgeMs: 1_000,
      historyImport:
        items === 0
          ? null
          : {
              percent: 50,
              items,
              itemsPerSecond: 400,
              etaMs: 5_000,
              syncType: 'RECENT',
              pushes: 2,
              startedAt: '2026-12-01T10:00:00.000Z',
              updatedAt: new Date(now).toISOString(),
              isDone: false,
            },
    });
    const heartbeat = new Heartbeat({
      logger: silentLogger(),
      statusPath,
      intervalMs: 60_000,
      getSnapshot: snapshot,
      now: () => now,
    });
    heartbeat.beat();
    expect(readCollectorStatus(statusPath)).toMatchObject({ outboxDrainPerSecond: null, historyImport: null });
    now += 10_000;
    started = 1_300;
    items = 4_000;
    heartbeat.beat();
    expect(readCollectorStatus(statusPath)).toMatchObject({
      outboxDrainPerSecond: 120,
      lastHeartbeatAt: '2026-12-01T10:00:10.000Z',
      historyImport: { items: 4_000, percent: 50 },
    });
    now += 2_000;
    items = 5_000;
    heartbeat.refresh();
    expect(readCollectorStatus(statusPath)).toMatchObject({
      outboxDrainPerSecond: 120,
      lastHeartbeatAt: '2026-12-01T10:00:10.000Z',
      historyImport: { items: 5_000, updatedAt: '2026-12-01T10:00:12.000Z' },
    });
  });

  it("logs the drain rate and the pending rows' ETA with every beat, so the log alone shows an import reaching Temporal", () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-heartbeat-'));
    dirs.push(dir);
    const lines: string[] = [];
    let now = Date.parse('2026-12-01T10:00:00Z');
    let started = 0;
    const heartbeat = new Heartbeat({
      logger: createRootLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } }),
      statusPath: join(dir, 'status.json'),
      intervalMs: 60_000,
      getSnapshot: () => ({
        mode: 'live',
        sessionState: 'open',
        sessionStateSince: '2026-12-01T09:00:00.000Z',
        outbox: { pending: 3_000, started, dead: 0 },
        oldestPendingAgeMs: 1_000,
      }),
      now: () => now,
    });
    heartbeat.beat();
    now += 60_000;
    started = 6_000;
    heartbeat.beat();
    const beats = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(beats[0]).toMatchObject({ msg: 'collector heartbeat', outboxDrainPerSecond: null, pendingEtaMs: null });
    expect(beats[1]).toMatchObject({ msg: 'collector heartbeat', outboxDrainPerSecond: 100, pendingEtaMs: 30_000 });
  });
});
