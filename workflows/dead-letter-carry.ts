import type { DeadLetterEntry, PackedDeadLetterEntries, PackedDeadLetterRow } from './contracts.js';

/**
 * Budget of the packed entries carried across continue-as-new, in bytes of JSON: well under the
 * server's 2 MB payload limit, leaving room for the rest of the input and the payload envelope.
 */
export const CARRY_BUDGET_BYTES = 1_500_000;

const NULL_REF = -1;

class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();

  ref(value: string | null): number {
    if (value === null) return NULL_REF;
    let ref = this.index.get(value);
    if (ref === undefined) {
      ref = this.strings.push(value) - 1;
      this.index.set(value, ref);
    }
    return ref;
  }
}

function toMs(iso: string | null): number {
  return iso === null ? NULL_REF : Date.parse(iso);
}

/** Packs entries (in order) into a string table and one row each. Excerpts are left out when `withExcerpts` is false. */
export function packDeadLetters(entries: readonly DeadLetterEntry[], withExcerpts = true): PackedDeadLetterEntries {
  const table = new StringTable();
  const rows = entries.map((entry): PackedDeadLetterRow => [
    entry.eventId,
    table.ref(entry.type),
    table.ref(entry.chatJid),
    entry.httpStatus ?? NULL_REF,
    table.ref(withExcerpts ? entry.responseExcerpt : ''),
    entry.bodySizeBytes,
    toMs(entry.deadLetteredAt),
    toMs(entry.resolvedAt),
    table.ref(entry.resolution),
  ]);
  return { strings: table.strings, rows };
}

/** Inverse of {@link packDeadLetters}. */
export function unpackDeadLetters(packed: PackedDeadLetterEntries): DeadLetterEntry[] {
  const text = (ref: number): string | null => (ref === NULL_REF ? null : (packed.strings[ref] ?? ''));
  const iso = (ms: number): string | null => (ms === NULL_REF ? null : new Date(ms).toISOString());
  return packed.rows.map(
    ([eventId, type, chatJid, httpStatus, excerpt, bodySizeBytes, at, resolvedAt, resolution]) => ({
      eventId,
      type: text(type) ?? '',
      chatJid: text(chatJid),
      httpStatus: httpStatus === NULL_REF ? null : httpStatus,
      responseExcerpt: text(excerpt) ?? '',
      bodySizeBytes,
      deadLetteredAt: iso(at) ?? '',
      resolvedAt: iso(resolvedAt),
      resolution: text(resolution),
    })
  );
}

/** What {@link packForCarry} had to give up to stay within the budget (all zero normally). */
export interface CarryLosses {
  resolvedDropped: number;
  excerptsDropped: boolean;
  openDropped: number;
}

function packedBytes(packed: PackedDeadLetterEntries): number {
  return JSON.stringify(packed).length;
}

/**
 * Chooses and packs the entries to carry across continue-as-new (every open entry
 * stays in reach of `wa-lake dlq list` and `dlq replay --all`). All open entries and the newest
 * `maxResolvedKept` resolved ones are carried, in their order. Only when that exceeds
 * `budgetBytes` does it give up, in this order: resolved entries; the response excerpts (the
 * full response stays in the failed `deliverEvent` run's history); last, the oldest open entries
 * (about 16 000 open entries fit without excerpts). Deterministic: safe in workflow code.
 *
 * @returns the packed entries and what was given up.
 */
export function packForCarry(
  entries: readonly DeadLetterEntry[],
  maxResolvedKept: number,
  budgetBytes = CARRY_BUDGET_BYTES
): { packed: PackedDeadLetterEntries; losses: CarryLosses } {
  const resolvedKept = new Set(
    entries
      .filter((entry) => entry.resolvedAt !== null)
      .slice(-maxResolvedKept)
      .map((entry) => entry.eventId)
  );
  let carried = entries.filter((entry) => entry.resolvedAt === null || resolvedKept.has(entry.eventId));
  const losses: CarryLosses = {
    resolvedDropped: entries.length - carried.length,
    excerptsDropped: false,
    openDropped: 0,
  };
  let packed = packDeadLetters(carried);
  if (packedBytes(packed) <= budgetBytes) return { packed, losses };
  const open = carried.filter((entry) => entry.resolvedAt === null);
  losses.resolvedDropped += carried.length - open.length;
  carried = open;
  packed = packDeadLetters(carried);
  if (packedBytes(packed) <= budgetBytes) return { packed, losses };
  losses.excerptsDropped = true;
  packed = packDeadLetters(carried, false);
  const bytes = packedBytes(packed);
  if (bytes <= budgetBytes) return { packed, losses };
  // The string table makes the size not quite proportional: shrink until it fits.
  let keep = Math.floor(carried.length * (budgetBytes / bytes));
  packed = packDeadLetters(carried.slice(carried.length - keep), false);
  while (keep > 0 && packedBytes(packed) > budgetBytes) {
    keep = Math.floor(keep * 0.95);
    packed = packDeadLetters(carried.slice(carried.length - keep), false);
  }
  losses.openDropped = carried.length - keep;
  return { packed, losses };
}
