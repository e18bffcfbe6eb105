import type { QuotaUsage } from '../../lake/index.js';

const DAY_SECONDS = 86_400;

interface QuotaWindow {
  name: 'daily' | 'monthly';
  limit: number;
  remaining: number;
  /** Length of the window in seconds. */
  windowSeconds: number;
  /** Seconds until the window resets (next UTC midnight / first of next month), at least 1. */
  resetSeconds: number;
}

function windowsOf(usage: QuotaUsage, nowMs: number): QuotaWindow[] {
  const now = new Date(nowMs);
  const nextDayMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const monthStartMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const nextMonthMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
  const windows: QuotaWindow[] = [];
  if (usage.dailyLimit !== null) {
    windows.push({
      name: 'daily',
      limit: usage.dailyLimit,
      remaining: Math.max(0, usage.dailyLimit - usage.dayUsed),
      windowSeconds: DAY_SECONDS,
      resetSeconds: seconds(nextDayMs - nowMs),
    });
  }
  if (usage.monthlyLimit !== null) {
    windows.push({
      name: 'monthly',
      limit: usage.monthlyLimit,
      remaining: Math.max(0, usage.monthlyLimit - usage.monthUsed),
      windowSeconds: (nextMonthMs - monthStartMs) / 1000,
      resetSeconds: seconds(nextMonthMs - nowMs),
    });
  }
  return windows;
}

/**
 * The quota headers of a send answer (ADR 0015), in the syntax of
 * draft-ietf-httpapi-ratelimit-headers (-09): `RateLimit-Policy` lists each limit of the key
 * (`"daily";q=100;w=86400`), `RateLimit` what is left and when it resets (`"daily";r=0;t=3600`). On a 429
 * (`isExceeded`), `Retry-After` is the wait until every exhausted window has reset. Windows are UTC days and
 * calendar months.
 *
 * @param usage the key's limits and use after the accept statement.
 * @param nowMs the current time (epoch ms).
 * @returns header name → value (lower case names); empty for a key without limits.
 */
export function quotaHeaders(usage: QuotaUsage, nowMs: number, isExceeded: boolean): Record<string, string> {
  const windows = windowsOf(usage, nowMs);
  if (windows.length === 0) return {};
  const headers: Record<string, string> = {
    'ratelimit-policy': windows.map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(', '),
    ratelimit: windows.map((w) => `"${w.name}";r=${w.remaining};t=${w.resetSeconds}`).join(', '),
  };
  if (isExceeded) {
    const exhausted = windows.filter((w) => w.remaining === 0);
    const waits = (exhausted.length > 0 ? exhausted : windows).map((w) => w.resetSeconds);
    headers['retry-after'] = String(Math.max(...waits));
  }
  return headers;
}

/** Which limit a refused request hit: the one with nothing left that resets last (`daily` or `monthly`). */
export function exhaustedQuotaName(usage: QuotaUsage, nowMs: number): 'daily' | 'monthly' {
  const exhausted = windowsOf(usage, nowMs).filter((w) => w.remaining === 0);
  return exhausted.some((w) => w.name === 'monthly') ? 'monthly' : 'daily';
}
