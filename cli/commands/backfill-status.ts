import type { Backfill } from '../../collector/index.js';

/** How long `wa-lake status` keeps showing a finished backfill (covered, exhausted, unanswered). */
export const RECENT_BACKFILL_MS = 7 * 24 * 3_600_000;

/** One backfill as `wa-lake status --json` lists it (`backfills`, ADR 0016 "Backfill feedback"). */
export interface BackfillStatus {
  groupJid: string;
  /** `asked` is a request out and not yet answered; `waiting` is due to be asked. */
  state: Backfill['state'];
  /** True while it runs (`waiting`, `asked`). */
  isOpen: boolean;
  /** The day it goes back to (00:00 UTC), `YYYY-MM-DD`. */
  since: string;
  /** The time of the oldest message it reached (its cursor), ISO; null until one is known. */
  reachedAt: string | null;
  /** Requests of the current page so far (the `BACKFILL_MAX_ATTEMPTS` count). */
  attempts: number;
  pages: number;
  messages: number;
  updatedAt: string;
  updatedAgeMs: number;
}

/** The backfills `wa-lake status` shows: every open one, and those finished in the last {@link RECENT_BACKFILL_MS}. */
export function selectBackfills(backfills: readonly Backfill[], nowMs: number): BackfillStatus[] {
  return backfills
    .map((backfill) => ({
      groupJid: backfill.groupJid,
      state: backfill.state,
      isOpen: backfill.state === 'waiting' || backfill.state === 'asked',
      since: new Date(backfill.sinceMs).toISOString().slice(0, 10),
      reachedAt: backfill.cursor ? new Date(backfill.cursor.tsMs).toISOString() : null,
      attempts: backfill.attempts,
      pages: backfill.pages,
      messages: backfill.messages,
      updatedAt: new Date(backfill.updatedAtMs).toISOString(),
      updatedAgeMs: Math.max(nowMs - backfill.updatedAtMs, 0),
    }))
    .filter((backfill) => backfill.isOpen || backfill.updatedAgeMs <= RECENT_BACKFILL_MS);
}

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function ago(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s ago`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min ago`;
  if (ms < 172_800_000) return `${(ms / 3_600_000).toFixed(1)} h ago`;
  return `${Math.round(ms / 86_400_000)} days ago`;
}

/**
 * The `backfill` line of `wa-lake status` for one backfill, in plain words: waiting to be asked, waiting for
 * WhatsApp's answer, covered back to its day, exhausted (WhatsApp had nothing older), or unanswered.
 * @param maxAttempts - `BACKFILL_MAX_ATTEMPTS`.
 * @param isReplay - the outbox's collector is a replay, which never asks WhatsApp.
 */
export function describeBackfill(backfill: BackfillStatus, maxAttempts: number, isReplay = false): string {
  const head = `backfill     : ${backfill.groupJid}`;
  const back = `back to ${backfill.since}`;
  const got = `${plural(backfill.pages, 'page', 'pages')}, ${plural(backfill.messages, 'message', 'messages')}`;
  const reached = backfill.reachedAt === null ? '' : `, reached ${backfill.reachedAt}`;
  const when = `(${backfill.state === 'waiting' || backfill.state === 'asked' ? 'updated' : 'ended'} ${ago(backfill.updatedAgeMs)})`;
  const replay = isReplay
    ? '; the collector of this outbox is a replay, which never asks WhatsApp: it waits for a live collector'
    : '';
  switch (backfill.state) {
    case 'waiting':
      return backfill.pages === 0
        ? `${head} waiting to be asked, ${back}; no page asked yet ${when}${replay}`
        : `${head} waiting to ask its next page, ${back}: ${got} so far${reached} ${when}${replay}`;
    case 'asked':
      return `${head} waiting for WhatsApp's answer (request ${String(backfill.attempts)} of ${String(maxAttempts)}), ${back}: ${got} so far${reached} ${when}`;
    case 'covered':
      return `${head} covered ${back}: ${got} ${when}`;
    case 'exhausted':
      return `${head} exhausted: WhatsApp had nothing older${backfill.reachedAt === null ? '' : ` than ${backfill.reachedAt}`} (asked ${back}): ${got} ${when}`;
    case 'unanswered':
      return `${head} unanswered: WhatsApp did not answer ${plural(backfill.attempts, 'request', 'requests')} for a page (asked ${back}, ${got} before); \`wa-lake backfill\` again retries ${when}`;
  }
}
