import { allHandlersFinished, condition, continueAsNew, log, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  addDeadLetterSignal,
  ERASED_EXCERPT,
  listDeadLettersQuery,
  redactDeadLettersSignal,
  resolveDeadLettersSignal,
  type DeadLetterEntry,
  type DeadLetterListRequest,
  type DeadLetterPage,
  type DeadLetterWorkflowInput,
  type PackedDeadLetterEntries,
} from './contracts.js';
import { packForCarry, unpackDeadLetters } from './dead-letter-carry.js';
import { isSignalArgumentMissing } from './forged-input.js';

/** Signals per run before continue-as-new; far below the server's cap of 10 000 (architecture.md §7). */
export const DEFAULT_CONTINUE_AS_NEW_AFTER_SIGNALS = 2_000;
export const DEFAULT_MAX_RESOLVED_KEPT = 1_000;
function listPage(entries: Map<string, DeadLetterEntry>, request: DeadLetterListRequest): DeadLetterPage {
  const all = [...entries.values()];
  const unresolvedCount = all.filter((entry) => entry.resolvedAt === null).length;
  const matching = request.includeResolved ? all : all.filter((entry) => entry.resolvedAt === null);
  const offset = Math.max(0, Math.floor(request.offset ?? 0));
  const limit = Math.min(1_000, Math.max(1, Math.floor(request.limit ?? 100)));
  const end = offset + limit;
  return {
    entries: matching.slice(offset, end),
    total: matching.length,
    unresolvedCount,
    nextOffset: end < matching.length ? end : null,
  };
}

function carry(entries: Map<string, DeadLetterEntry>, maxResolvedKept: number): PackedDeadLetterEntries {
  const { packed, losses } = packForCarry([...entries.values()], maxResolvedKept);
  if (losses.excerptsDropped || losses.openDropped > 0) {
    log.warn('dead-letter entries over the carry budget; excerpts or the oldest entries stay only in the Web UI', {
      excerptsDropped: losses.excerptsDropped,
      openDropped: losses.openDropped,
    });
  }
  return packed;
}

/**
 * The single long-lived dead-letter workflow (id `DEAD_LETTER_WORKFLOW_ID`, architecture.md §7). Receives entries
 * by signal-with-start ({@link addDeadLetterSignal}; a second entry for the same event re-opens it),
 * marks them resolved ({@link resolveDeadLettersSignal}), answers {@link listDeadLettersQuery} with
 * offset pages (oldest first), and continues-as-new after `continueAsNewAfterSignals` signals or when the
 * server suggests it, carrying its entries packed (every open one). Never completes on its own.
 *
 * @param input - carried entries and thresholds (see {@link DeadLetterWorkflowInput}).
 */
export async function deadLetter(input: DeadLetterWorkflowInput = {}): Promise<void> {
  const threshold = input.continueAsNewAfterSignals ?? DEFAULT_CONTINUE_AS_NEW_AFTER_SIGNALS;
  const maxResolvedKept = input.maxResolvedKept ?? DEFAULT_MAX_RESOLVED_KEPT;
  const carried = [...(input.entries ?? []), ...(input.packedEntries ? unpackDeadLetters(input.packedEntries) : [])];
  const entries = new Map<string, DeadLetterEntry>(carried.map((entry) => [entry.eventId, entry]));
  let signalsThisRun = 0;

  setHandler(addDeadLetterSignal, (entry) => {
    if (isSignalArgumentMissing(addDeadLetterSignal.name, entry)) return;
    signalsThisRun += 1;
    entries.delete(entry.eventId);
    entries.set(entry.eventId, { ...entry, resolvedAt: null, resolution: null });
  });
  setHandler(resolveDeadLettersSignal, (request) => {
    if (isSignalArgumentMissing(resolveDeadLettersSignal.name, request)) return;
    signalsThisRun += 1;
    const resolvedAt = new Date().toISOString();
    for (const eventId of request.eventIds) {
      const entry = entries.get(eventId);
      if (entry && entry.resolvedAt === null)
        entries.set(eventId, { ...entry, resolvedAt, resolution: request.reason });
    }
  });
  setHandler(redactDeadLettersSignal, (request) => {
    if (isSignalArgumentMissing(redactDeadLettersSignal.name, request)) return;
    signalsThisRun += 1;
    for (const eventId of request.eventIds) {
      const entry = entries.get(eventId);
      if (entry) entries.set(eventId, { ...entry, responseExcerpt: ERASED_EXCERPT });
    }
  });
  setHandler(listDeadLettersQuery, (request) => listPage(entries, request ?? {}));

  await condition(() => signalsThisRun >= threshold || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof deadLetter>({
    packedEntries: carry(entries, maxResolvedKept),
    continueAsNewAfterSignals: threshold,
    maxResolvedKept,
  });
}
