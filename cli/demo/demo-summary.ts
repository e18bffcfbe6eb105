import type { OutboxState } from '../../collector/index.js';
import type { DeliveryTally } from './await-deliveries.js';
import type { DemoEngagement } from './demo-engagement.js';

/** What `wa-lake demo --json` prints as one JSON object on its last stdout line. */
export interface DemoSummary {
  capture: string;
  /** Baileys events (capture lines) read. */
  read: number;
  /** Items after fan-out (one per message, reaction, participant update…). */
  items: number;
  kept: number;
  /** Distinct event ids among the kept items: what the lake must hold. */
  distinctKept: number;
  dropped: Record<string, number>;
  /** Kept items whose event_id was already in the outbox (INSERT OR IGNORE). */
  duplicatesRejected: number;
  malformedLines: number;
  /** Records whose event carries no item (`data: null`, `messages: []`). */
  recordsWithoutItems: number;
  /** Blank lines skipped (not in `read`). */
  blankLines: number;
  outbox: Record<OutboxState, number>;
  workflows: DeliveryTally;
  /** Distinct kept events of this capture quarantined as dead in the outbox (too large to deliver). */
  quarantined: number;
  /** Rows in whatsapp_event_logs for the capture's kept event ids. */
  lakeRows: number;
  webUi: string | null;
  /** True when every distinct kept event is in the lake exactly once. */
  ok: boolean;
  /** How long the demo waited for deliveries (`--timeout-ms`). */
  timeoutMs: number;
  /** True when the wait ran out with events still in the outbox or workflows still running: not a loss. */
  timedOut: boolean;
  /** Engagement counted from the lake. */
  engagement?: DemoEngagement;
  /** Where the HTML engagement report was written. */
  engagementReport?: string;
}

/** Renders the human-readable demo summary (one string, trailing newline). */
export function formatDemoSummary(summary: DemoSummary): string {
  const dropped = Object.entries(summary.dropped)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([reason, count]) => `      ${String(count).padStart(5)}  ${reason}`);
  const droppedTotal = Object.values(summary.dropped).reduce((sum, count) => sum + count, 0);
  const lines = [
    `wa-lake demo — ${summary.capture}`,
    `  events read (capture lines) : ${summary.read}${describeUnreadLines(summary)}`,
    `  items after fan-out         : ${summary.items}`,
    `  kept                        : ${summary.kept} (${summary.distinctKept} distinct event ids)`,
    `  dropped                     : ${droppedTotal}`,
    ...dropped,
    `  duplicates rejected (outbox): ${summary.duplicatesRejected}`,
    `  outbox rows                 : pending ${summary.outbox.pending} · started ${summary.outbox.started} · dead ${summary.outbox.dead}`,
    `  workflows                   : completed ${summary.workflows.completed} · failed ${summary.workflows.failed} · unfinished ${summary.workflows.unfinished}`,
    `  lake rows for these events  : ${summary.lakeRows}`,
    `  Temporal Web UI             : ${summary.webUi ?? '(stopped with the demo; --keep-running keeps it up)'}`,
    summary.ok ? `  OK: the lake holds ${describeDelivered(summary)} exactly once` : failureLine(summary),
  ];
  return `${lines.join('\n')}\n`;
}

// Events quarantined as dead in the outbox (too large to deliver) never reach the lake: say so rather than
// claim every kept event is there.
function describeDelivered(summary: DemoSummary): string {
  const dead = summary.quarantined;
  return dead === 0
    ? 'each distinct kept event'
    : `each distinct kept event but the ${String(dead)} quarantined as dead in the outbox (too large to deliver)`;
}

/**
 * Says that the wait ran out when it did: events still pending in the outbox or in running workflows are on
 * their way, not lost, and a mismatch line would claim otherwise.
 */
export function describeDemoTimeout(summary: DemoSummary): string | null {
  if (!summary.timedOut) return null;
  const expected = summary.distinctKept - summary.quarantined;
  return (
    `the wait for deliveries ran out after ${String(summary.timeoutMs)} ms with ${String(summary.lakeRows)} of ` +
    `${String(expected)} deliverable events in the lake (${String(summary.outbox.pending)} still pending in the outbox, ` +
    `${String(summary.workflows.unfinished)} workflows unfinished); run again with a larger --timeout-ms`
  );
}

function failureLine(summary: DemoSummary): string {
  const timeout = describeDemoTimeout(summary);
  if (timeout !== null) return `  TIMEOUT: ${timeout}`;
  const expected = summary.distinctKept - summary.quarantined;
  return `  MISMATCH: lake rows ${String(summary.lakeRows)} ≠ ${String(expected)} deliverable distinct kept events`;
}

/** ` (2 malformed, 1 without items; 3 blank lines skipped)` for lines that brought no item; empty when none. */
function describeUnreadLines(summary: DemoSummary): string {
  const within = [
    summary.malformedLines ? `${summary.malformedLines} malformed` : '',
    summary.recordsWithoutItems ? `${summary.recordsWithoutItems} without items` : '',
  ].filter((part) => part !== '');
  const blank = summary.blankLines ? `${summary.blankLines} blank lines skipped` : '';
  const parts = [within.join(', '), blank].filter((part) => part !== '');
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}
