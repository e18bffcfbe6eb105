import { compareEntries, type MembershipEntry } from './membership-state.js';

/** A time span in which the linked account was not in a group (epoch ms; `endedAtMs` null: still out). */
export interface UnobservedPeriod {
  startedAtMs: number;
  endedAtMs: number | null;
}

/**
 * The periods in which one linked account was out of a group (ADR 0007), from every
 * membership fact about the account there (under any of its JIDs): a removal or leave starts a
 * period, the next presence (re-added, joined) ends it. Engagement reads no silence into these
 * spans. Facts are ordered as memberships are (ADR 0007), and each run starts at its earliest event
 * time, so the result is a function of the set of facts. Presence before any absence is no period.
 * The lake's view `whatsapp_account_unobserved_periods` is this rule in SQL, per account (ADR 0019);
 * `test/integration/ingest-api/unobserved-periods-per-account.test.ts` checks that both agree.
 *
 * @returns periods in order, at most one open (the last).
 */
export function foldUnobservedPeriods(entries: readonly MembershipEntry[]): UnobservedPeriod[] {
  const runs: Array<{ isPresent: boolean; startMs: number }> = [];
  for (const entry of [...entries].sort(compareEntries)) {
    const last = runs.at(-1);
    if (last?.isPresent === entry.isPresent) last.startMs = Math.min(last.startMs, entry.atMs);
    else runs.push({ isPresent: entry.isPresent, startMs: entry.atMs });
  }
  return runs.flatMap((run, index) => {
    const endedAtMs = runs[index + 1]?.startMs ?? null;
    // A hint ranked before a timed fact can be later in time: a run ending no later than it starts spans nothing.
    return run.isPresent || (endedAtMs !== null && endedAtMs <= run.startMs)
      ? []
      : [{ startedAtMs: run.startMs, endedAtMs }];
  });
}
