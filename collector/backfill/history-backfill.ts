import type { Logger } from '../../common/logger.js';
import { isJidGroup } from '../../common/whatsapp-jid.js';
import { historySourceOf } from '../history-items.js';
import type { Backfill, BackfillStore } from './backfill-store.js';

/** The part of the Baileys 7 socket a backfill uses (`Socket/messages-recv.d.ts`, rc14). */
export interface HistoryFetchSocket {
  fetchMessageHistory?(
    count: number,
    oldestMsgKey: { remoteJid: string; id: string; fromMe: boolean; participant?: string },
    oldestMsgTimestampMs: number
  ): Promise<string>;
}

/** Options of {@link HistoryBackfill}; durations in ms (`BACKFILL_*` keys, docs/configuration.md). */
export interface HistoryBackfillOptions {
  store: BackfillStore;
  /** The open socket, or null while the session is not open (nothing is asked then). */
  getSocket: () => HistoryFetchSocket | null;
  logger: Logger;
  /** Messages per request (`onDemandMsgCount`); 50 is what projects use. */
  pageSize: number;
  /** At most one request per interval, whatever the number of groups (ban risk, ADR 0016). */
  requestIntervalMs: number;
  /** A request without an answer this long is asked again, up to `maxAttempts` in all. */
  answerTimeoutMs: number;
  maxAttempts: number;
  /** Called once when a backfill ends (covered, exhausted or unanswered), to tell the lake (coverage). */
  onFinished?: (backfill: Backfill) => void;
  now?: () => number;
}

type Obj = Record<string, unknown>;
const asObject = (value: unknown): Obj | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : null;
/** Epoch ms of a `messageTimestamp` in seconds: a number, a decimal string, or a protobufjs `Long` (history). */
const secondsToMs = (value: unknown): number | null => {
  const long = asObject(value);
  const n = long && typeof long['toNumber'] === 'function' ? (long['toNumber'] as () => number)() : Number(value);
  return Number.isFinite(n) && n > 0 ? n * 1000 : null;
};

/** The oldest message of `messages` as a cursor, or null. */
function oldestOf(messages: Obj[]): Backfill['cursor'] {
  let oldest: Backfill['cursor'] = null;
  for (const message of messages) {
    const key = asObject(message['key']);
    const tsMs = secondsToMs(message['messageTimestamp']);
    const id = typeof key?.['id'] === 'string' ? key['id'] : null;
    if (!key || !id || tsMs === null || (oldest && oldest.tsMs <= tsMs)) continue;
    const participant = typeof key['participant'] === 'string' ? key['participant'] : null;
    oldest = { id, fromMe: key['fromMe'] === true, participant, tsMs };
  }
  return oldest;
}

/**
 * Fills gaps from WhatsApp's on-demand history (ADR 0016): for each group with a backfill, asks
 * `fetchMessageHistory(pageSize, cursor key, cursor time)` for the messages before the oldest one held, one
 * request per `requestIntervalMs` at most; each `ON_DEMAND` answer (a `messaging-history.set`, stored by the
 * pipeline like any push) moves the cursor to its oldest message, until the cursor reaches `since` (covered),
 * or WhatsApp has nothing older (an empty page, or a page of messages no older than the cursor: exhausted).
 * A request without an answer is asked again after `answerTimeoutMs`, then given up (unanswered). Progress
 * lives in the outbox file, so a restart resumes from the last answered cursor.
 */
export class HistoryBackfill {
  private timer: NodeJS.Timeout | null = null;
  /** Groups whose backfill waits for its first cursor: the only ones a stored message is looked at for. */
  private awaitingCursor = new Set<string>();
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly options: HistoryBackfillOptions) {
    this.logger = options.logger.child({ component: 'history-backfill' });
    this.now = options.now ?? Date.now;
  }

  /** Ticks every `requestIntervalMs` (idempotent). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.options.requestIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Sends at most one request (timeouts first, then the longest-waiting backfill). @returns the group asked, or null. */
  tick(): string | null {
    this.refresh();
    const socket = this.options.getSocket();
    if (!socket?.fetchMessageHistory) return null;
    const nowMs = this.now();
    const backfills = this.options.store.list();
    for (const backfill of backfills) {
      if (backfill.state !== 'asked' || (backfill.askedAtMs ?? 0) + this.options.answerTimeoutMs > nowMs) continue;
      if (backfill.attempts >= this.options.maxAttempts) {
        this.options.store.setState(backfill.groupJid, 'unanswered');
        this.finish(backfill.groupJid, 'warn');
        continue;
      }
      return this.ask(socket, backfill, nowMs);
    }
    const due = backfills.find((backfill) => backfill.state === 'waiting' && backfill.cursor !== null);
    return due ? this.ask(socket, due, nowMs) : null;
  }

  /** Re-reads which backfills wait for a cursor (after `wa-lake backfill` or a gap request wrote rows). */
  refresh(): void {
    const waiting = this.options.store.list().filter((b) => b.state === 'waiting' && b.cursor === null);
    this.awaitingCursor = new Set(waiting.map((backfill) => backfill.groupJid));
  }

  /** A stored group message: anchors a backfill that has no cursor yet (the first message after the gap). */
  noteMessage(groupJid: string, message: unknown): void {
    if (!this.awaitingCursor.has(groupJid)) return;
    const backfill = this.options.store.get(groupJid);
    if (!backfill || backfill.cursor !== null || backfill.state !== 'waiting') {
      this.awaitingCursor.delete(groupJid);
      return;
    }
    const cursor = oldestOf([asObject(message) ?? {}]);
    if (!cursor || cursor.tsMs < backfill.sinceMs) return;
    this.options.store.request(groupJid, backfill.sinceMs, cursor);
    this.awaitingCursor.delete(groupJid);
  }

  /** A `messaging-history.set` was stored: an `ON_DEMAND` one answers the backfills of its groups. */
  onHistory(data: unknown): void {
    if (historySourceOf(data) !== 'on_demand') return;
    const messages = asObject(data)?.['messages'];
    const byGroup = new Map<string, Obj[]>();
    for (const raw of Array.isArray(messages) ? messages : []) {
      const message = asObject(raw);
      const jid = asObject(message?.['key'])?.['remoteJid'];
      if (!message || typeof jid !== 'string' || !isJidGroup(jid)) continue;
      byGroup.set(jid, [...(byGroup.get(jid) ?? []), message]);
    }
    const asked = this.options.store.list().filter((backfill) => backfill.state === 'asked');
    // An empty answer names no chat: it answers the one request out (requests are paced one at a time).
    if (byGroup.size === 0 && asked.length === 1 && asked[0]) byGroup.set(asked[0].groupJid, []);
    for (const [groupJid, page] of byGroup) this.recordPage(groupJid, page);
  }

  private recordPage(groupJid: string, page: Obj[]): void {
    const backfill = this.options.store.get(groupJid);
    if (!backfill || (backfill.state !== 'asked' && backfill.state !== 'waiting') || !backfill.cursor) return;
    const oldest = oldestOf(page);
    const isOlder = oldest !== null && oldest.tsMs < backfill.cursor.tsMs;
    const state = !isOlder ? 'exhausted' : oldest.tsMs <= backfill.sinceMs ? 'covered' : 'waiting';
    this.options.store.recordAnswer(groupJid, { cursor: isOlder ? oldest : null, messages: page.length, state });
    const progress = this.options.store.get(groupJid);
    this.logger.info(
      { groupJid, state, pages: progress?.pages, messages: progress?.messages, cursorTsMs: progress?.cursor?.tsMs },
      'history backfill page'
    );
    if (state !== 'waiting') this.finish(groupJid, 'info');
  }

  private ask(socket: HistoryFetchSocket, backfill: Backfill, nowMs: number): string {
    const cursor = backfill.cursor;
    if (!cursor || !socket.fetchMessageHistory) return backfill.groupJid;
    this.options.store.markAsked(backfill.groupJid, nowMs);
    const key = {
      remoteJid: backfill.groupJid,
      id: cursor.id,
      fromMe: cursor.fromMe,
      ...(cursor.participant ? { participant: cursor.participant } : {}),
    };
    socket
      .fetchMessageHistory(this.options.pageSize, key, cursor.tsMs)
      .catch((err: unknown) => this.logger.warn({ err, groupJid: backfill.groupJid }, 'history request failed'));
    return backfill.groupJid;
  }

  private finish(groupJid: string, level: 'info' | 'warn'): void {
    const backfill = this.options.store.get(groupJid);
    if (!backfill) return;
    this.logger[level](
      { groupJid, state: backfill.state, pages: backfill.pages, messages: backfill.messages },
      'history backfill finished'
    );
    this.options.onFinished?.(backfill);
  }
}
