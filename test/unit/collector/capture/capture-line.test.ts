import { describe, expect, it } from 'vitest';
import { formatCaptureLine, parseCaptureLine } from '../../../../collector/capture/capture-line.js';

const capturedAt = new Date('2025-06-01T10:01:00.000Z');

describe('formatCaptureLine', () => {
  it('writes one line in our format with bytes as BufferJSON base64', () => {
    const line = formatCaptureLine(
      'messages.upsert',
      { text: 'a\nb\u0000c 😂', thumb: Buffer.from([1, 2, 3]) },
      capturedAt
    );
    expect(line).not.toContain('\n');
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['captured_at', 'event', 'data']);
    expect(parsed['captured_at']).toBe('2025-06-01T10:01:00.000Z');
    expect(parsed['data']).toEqual({ text: 'a\nb\u0000c 😂', thumb: { type: 'Buffer', data: 'AQID' } });
  });

  it('round-trips through parseCaptureLine with Buffers revived', () => {
    const data = { key: { id: 'X' }, mediaKey: new Uint8Array([9, 8, 7]) };
    const parsed = parseCaptureLine(formatCaptureLine('messages.update', data, capturedAt));
    expect(parsed.kind).toBe('record');
    if (parsed.kind !== 'record') return;
    expect(parsed.record.event).toBe('messages.update');
    expect(parsed.record.capturedAt.toISOString()).toBe(capturedAt.toISOString());
    expect(Buffer.isBuffer((parsed.record.data as { mediaKey: unknown }).mediaKey)).toBe(true);
  });
});

describe('parseCaptureLine', () => {
  it("reads the first collector's trail lines with ISO or epoch-ms timestamps", () => {
    const iso = parseCaptureLine(
      '{"timestamp":"2025-06-01T10:01:00.000Z","event":"groups.update","data":[{"id":"1@g.us"}]}'
    );
    const epoch = parseCaptureLine(`{"timestamp":${capturedAt.getTime()},"event":"groups.update","data":[]}`);
    expect(iso).toMatchObject({ kind: 'record', record: { event: 'groups.update', data: [{ id: '1@g.us' }] } });
    expect(epoch.kind === 'record' && epoch.record.capturedAt.getTime()).toBe(capturedAt.getTime());
  });

  it('reports malformed lines with a reason instead of throwing', () => {
    expect(parseCaptureLine('{"captured_at":"2025-06-01T10:01:00Z","event":"x"')).toEqual({
      kind: 'malformed',
      reason: 'not JSON',
    });
    expect(parseCaptureLine('[1,2]')).toEqual({ kind: 'malformed', reason: 'not an object' });
    expect(parseCaptureLine('{"captured_at":"2025-06-01T10:01:00Z","data":{}}')).toEqual({
      kind: 'malformed',
      reason: 'no event name',
    });
    expect(parseCaptureLine('{"captured_at":"2025-06-01T10:01:00Z","event":"x"}')).toEqual({
      kind: 'malformed',
      reason: 'no data',
    });
    expect(parseCaptureLine('{"captured_at":"yesterday","event":"x","data":{}}')).toMatchObject({ kind: 'malformed' });
    expect(parseCaptureLine('   ')).toEqual({ kind: 'blank' });
  });
});
