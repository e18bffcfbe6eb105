import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureRecorder } from '../../../collector/capture/capture-recorder.js';
import type { CaptureProgress } from '../../../collector/capture/capture-reader.js';
import { replayCapture } from '../../../collector/capture/replay-capture.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { EVENT_KINDS, EVENT_PREFIX_KINDS } from '../../../collector/event-kinds.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { createRecordingLogger, createTempDir } from '../../helpers/collector-test-kit.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function openPipeline(): { outbox: OutboxStore; pipeline: EventPipeline; dir: string } {
  const { dir, cleanup } = createTempDir('replay');
  const outbox = OutboxStore.open({ path: join(dir, 'outbox.sqlite') });
  cleanups.push(cleanup, () => outbox.close());
  const pipeline = new EventPipeline({
    outbox,
    logger: createRecordingLogger().logger,
    getSelfJid: () => '5500000000009@s.whatsapp.net',
  });
  return { outbox, pipeline, dir };
}

const line = (timestamp: string, event: string, data: unknown): string => JSON.stringify({ timestamp, event, data });
const groupUpsert = (id: string) => ({
  type: 'notify',
  messages: [
    {
      key: { remoteJid: '120363000000000001@g.us', fromMe: false, id, participant: '100000000000001@lid' },
      messageTimestamp: 1748772000,
      message: { conversation: `text ${id}` },
    },
  ],
});

describe('replayCapture', () => {
  it('replays examples/capture.jsonl into the outbox, and a second replay adds nothing', async () => {
    const { outbox, pipeline } = openPipeline();
    const first = await replayCapture({ path: EXAMPLE, pipeline });
    expect(first.malformedLines).toBe(0);
    expect(first.lines).toBeGreaterThanOrEqual(60);
    expect(first.kept).toBeGreaterThan(0);
    expect(first.eventIds.size).toBeLessThan(first.kept);
    expect(first.dropped['presence_firehose']).toBe(2);
    expect(outbox.countByState().pending + outbox.countByState().dead).toBe(first.eventIds.size);

    const second = await replayCapture({ path: EXAMPLE, pipeline });
    expect(second.inserted).toBe(0);
    expect(second.duplicates).toBe(second.kept - second.dead);
    expect([...second.eventIds].sort()).toEqual([...first.eventIds].sort());
    expect(outbox.countByState().pending + outbox.countByState().dead).toBe(first.eventIds.size);
  });

  it('keeps integers above 2^53 digit for digit from the capture line to the outbox body', async () => {
    const { outbox, pipeline, dir } = openPipeline();
    const capture = join(dir, 'big-integers.jsonl');
    const group = '120363000000000001@g.us';
    writeFileSync(
      capture,
      `{"captured_at":"2025-06-01T10:00:00.000Z","event":"groups.update","data":[{"id":"${group}",` +
        '"size":9007199254740993,"creation":123456789012345678901234567890123}]}\n'
    );
    const summary = await replayCapture({ path: capture, pipeline });
    expect(summary.kept).toBe(1);
    const [eventId] = [...summary.eventIds];
    const body = outbox.get(eventId!)?.body ?? '';
    expect(body).toContain('"size":"9007199254740993"');
    expect(body).toContain('"creation":"123456789012345678901234567890123"');
  });

  it('covers every kept and dropped event of the filter table, and never creds.update', () => {
    const events = new Set(
      readFileSync(EXAMPLE, 'utf8')
        .trim()
        .split('\n')
        .map((text) => (JSON.parse(text) as { event: string }).event)
    );
    // `collector.*` events are the collector's own session and heartbeat records (coverage, ADR 0016): a
    // capture of Baileys' events never holds them.
    const expected = Object.keys(EVENT_KINDS).filter(
      (name) => name !== 'creds.update' && !name.startsWith('collector.')
    );
    expect(expected.filter((name) => !events.has(name))).toEqual([]);
    expect(EVENT_PREFIX_KINDS.filter(([prefix]) => ![...events].some((name) => name.startsWith(prefix)))).toEqual([]);
    expect(events.has('creds.update')).toBe(false);
  });

  it("reads the first collector's trail folder in timestamp order and counts malformed lines", async () => {
    const { pipeline, dir } = openPipeline();
    const logs = join(dir, 'trail', 'logs');
    mkdirSync(join(logs, 'messages.upsert'), { recursive: true });
    mkdirSync(join(logs, 'groups.update'), { recursive: true });
    writeFileSync(
      join(logs, 'messages.upsert', '2025-06-01.json'),
      [
        line('2025-06-01T10:00:01Z', 'messages.upsert', groupUpsert('T1')),
        'not json',
        line('2025-06-01T10:00:03Z', 'messages.upsert', groupUpsert('T3')),
      ].join('\n')
    );
    writeFileSync(
      join(logs, 'groups.update', '2025-06-01.json'),
      line('2025-06-01T10:00:02Z', 'groups.update', [{ id: '120363000000000001@g.us', subject: 'S' }]) + '\n'
    );
    writeFileSync(
      join(logs, 'messages.upsert', '2025-06-02.json'),
      line('2025-06-02T08:00:00Z', 'messages.upsert', groupUpsert('T4')) + '\n'
    );
    const seen: string[] = [];
    const progress: CaptureProgress[] = [];
    const spy = {
      handle: (event: string, data: unknown, at: Date) => (
        seen.push(at.toISOString()),
        pipeline.handle(event, data, at)
      ),
    };
    const summary = await replayCapture({
      path: join(dir, 'trail'),
      pipeline: spy,
      progressEveryLines: 1,
      onProgress: (p) => progress.push(p),
    });
    expect(seen).toEqual([
      '2025-06-01T10:00:01.000Z',
      '2025-06-01T10:00:02.000Z',
      '2025-06-01T10:00:03.000Z',
      '2025-06-02T08:00:00.000Z',
    ]);
    expect(summary).toMatchObject({ lines: 5, malformedLines: 1, kept: 4, inserted: 4 });
    const last = progress.at(-1);
    expect(last?.bytesRead).toBe(last?.totalBytes);
    expect(last === undefined || last.etaMs === null || last.etaMs >= 0).toBe(true);
    expect((await replayCapture({ path: join(dir, 'trail'), pipeline })).inserted).toBe(0);
  });
  it('counts every line once: records with and without items, malformed and blank, as the progress does', async () => {
    const { pipeline, dir } = openPipeline();
    const capture = join(dir, 'mixed.jsonl');
    writeFileSync(
      capture,
      [
        line('2025-06-01T10:00:01Z', 'messages.upsert', groupUpsert('M1')),
        line('2025-06-01T10:00:02Z', 'messages.upsert', null),
        line('2025-06-01T10:00:03Z', 'messages.upsert', { type: 'notify', messages: [] }),
        '',
        line('2025-06-01T10:00:04Z', 'groups.update', null),
        'not json',
      ].join('\n') + '\n'
    );
    const progress: CaptureProgress[] = [];
    const summary = await replayCapture({ path: capture, pipeline, onProgress: (p) => progress.push(p) });

    expect(summary).toMatchObject({
      lines: 5,
      records: 4,
      recordsWithoutItems: 3,
      malformedLines: 1,
      blankLines: 1,
      items: 1,
      kept: 1,
    });
    expect(summary.records + summary.malformedLines).toBe(summary.lines);
    expect(progress.at(-1)).toMatchObject({ lines: summary.lines, blankLines: summary.blankLines });
  });
});

describe('CaptureRecorder', () => {
  it('records everything but creds.update, and its replay yields the same event ids as the live path', async () => {
    const live = openPipeline();
    const replayed = openPipeline();
    const capturePath = join(live.dir, 'record', 'capture.jsonl');
    const recorder = CaptureRecorder.open(capturePath, createRecordingLogger().logger);
    const liveIds = new Set<string>();
    const emitted: Array<[string, unknown]> = [
      ['creds.update', { noiseKey: { private: Buffer.from('secret-key-material') } }],
      [
        'messages.upsert',
        {
          type: 'notify',
          messages: [
            { ...groupUpsert('R1').messages[0], message: { imageMessage: { jpegThumbnail: Buffer.alloc(10, 1) } } },
          ],
        },
      ],
      ['presence.update', { id: '120363000000000001@g.us', presences: {} }],
      ['messages.upsert', groupUpsert('R2')],
    ];
    for (const [event, data] of emitted) {
      const at = new Date();
      recorder.record(event, data, at);
      live.pipeline.handle(event, data, at).eventIds.forEach((id) => liveIds.add(id));
    }
    recorder.close();
    const text = readFileSync(capturePath, 'utf8');
    expect(text).not.toContain('creds.update');
    expect(text).not.toContain(Buffer.from('secret-key-material').toString('base64'));
    expect(text.trim().split('\n')).toHaveLength(3);
    const summary = await replayCapture({ path: capturePath, pipeline: replayed.pipeline });
    expect(summary.eventIds).toEqual(liveIds);
  });
});
