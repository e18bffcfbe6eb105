import { writeFileSync } from 'node:fs';
import { formatCaptureLine } from '../../collector/capture/capture-line.js';
import * as b from '../../examples/capture-builders.js';

/** What {@link writeChaosCapture} wrote. */
export interface ChaosCapture {
  /** Capture lines written. */
  lines: number;
  /** Distinct group messages (each one lake row when delivered). */
  distinctMessages: number;
  /** Lines that repeat an earlier message exactly (a re-emit: same event_id). */
  reEmits: number;
  /** Messages the ingest refuses for good (body over `INGEST_BODY_LIMIT_BYTES`: dead letters in Temporal). */
  poisonForIngest: number;
  /** Messages the collector refuses (body over `OUTBOX_BODY_LIMIT_BYTES`: `dead` outbox rows). */
  poisonForOutbox: number;
  /**
   * Lake rows a fault-free run stores: the messages that are not poison, plus one group snapshot and one
   * membership change per group. Where the chaos run's faults land, before the reference has settled.
   */
  expectedRows: number;
}

/** Ingest body limit of the chaos stack (bytes); a poison message is bigger. */
export const CHAOS_INGEST_BODY_LIMIT_BYTES = 32 * 1024;
/** Outbox body limit of the chaos stack (bytes); an outbox-poison message is bigger. */
export const CHAOS_OUTBOX_BODY_LIMIT_BYTES = 64 * 1024;

const GROUPS = ['120363000000000101@g.us', '120363000000000102@g.us', '120363000000000103@g.us'];
const MEMBERS = 8;

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so both runs replay the same capture. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Writes a capture for the chaos test: one `groups.metadata` snapshot per group,
 * then `events` group text messages from several members, about 30 % of them emitted again later
 * (re-emits), about 1 % poison (half too big for the ingest, half too big for the outbox), and a
 * membership change per group. Deterministic for a given `seed`.
 *
 * @returns the counts written (see {@link ChaosCapture}).
 */
export function writeChaosCapture(path: string, events: number, seed = 14): ChaosCapture {
  const random = seededRandom(seed);
  const lines: string[] = [];
  const push = (event: string, data: unknown, seconds: number): void =>
    void lines.push(formatCaptureLine(event, data, new Date(seconds * 1000)));
  const members = Array.from({ length: MEMBERS }, (_, index) => b.participant(index + 1, index === 0 ? 'admin' : null));
  GROUPS.forEach((group, index) => push('groups.metadata', b.groupMetadata(group, `Chaos ${index}`, members), b.T0));
  const counts: ChaosCapture = {
    lines: 0,
    distinctMessages: 0,
    reEmits: 0,
    poisonForIngest: 0,
    poisonForOutbox: 0,
    expectedRows: 0,
  };
  const emitted: Array<{ data: unknown; seconds: number }> = [];
  for (let i = 0; i < events; i++) {
    const seconds = b.T0 + 10 + i;
    const group = GROUPS[i % GROUPS.length]!;
    const member = 1 + Math.floor(random() * MEMBERS);
    const roll = random();
    let text = `chaos message ${i}`;
    if (roll < 0.005) {
      text = 'x'.repeat(CHAOS_OUTBOX_BODY_LIMIT_BYTES + 1024);
      counts.poisonForOutbox++;
    } else if (roll < 0.01) {
      text = 'y'.repeat(CHAOS_INGEST_BODY_LIMIT_BYTES + 1024);
      counts.poisonForIngest++;
    }
    const id = `3EB0C${String(i).padStart(15, '0')}`;
    const upsert = { type: 'notify', messages: [b.textMessage(group, id, member, seconds, text)] };
    push('messages.upsert', upsert, seconds);
    emitted.push({ data: upsert, seconds });
    counts.distinctMessages++;
    if (random() < 0.3) {
      const earlier = emitted[Math.floor(random() * emitted.length)]!;
      push('messages.upsert', earlier.data, earlier.seconds);
      counts.reEmits++;
    }
  }
  GROUPS.forEach((group, index) =>
    push(
      'messages.upsert',
      {
        type: 'notify',
        messages: [b.stubMessage(group, `3EB0CSTUB${index}`, 1, b.T0 + events + 20, 28, [b.lid(MEMBERS)])],
      },
      b.T0 + events + 20
    )
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
  counts.lines = lines.length;
  counts.expectedRows = counts.distinctMessages - counts.poisonForIngest - counts.poisonForOutbox + 2 * GROUPS.length;
  return counts;
}
