import type { WireSend } from '../../cli/demo-send/simulated-whatsapp.js';

/** One accepted message of the send phase as the lake holds it. */
export interface ChaosSendRow {
  id: string;
  state: string;
  wa_message_id: string;
}

/** What {@link measureChaosSend} counts; counts of messages unless said otherwise. */
export interface ChaosSendFigures {
  /** Rows of the phase's key in `outbound_messages`. */
  accepted: number;
  /** Ended `sent`, `delivered` or `read`. */
  sent: number;
  expired: number;
  failed: number;
  /** Accepted but in no final state (`read`, `failed`, `expired`). */
  unsettled: number;
  /** The unsettled messages by state, for example `{ queued: 2, delivered: 1 }`. */
  unsettledStates: Record<string, number>;
  /** Messages whose row passed `dispatched` (the socket accepted them). */
  dispatched: number;
  /** Sends the simulated WhatsApp accepted (a retry after an ambiguous outcome counts again). */
  wireSends: number;
  /** Distinct WhatsApp message ids on the wire. */
  distinctWireIds: number;
  /** Wire ids that belong to no accepted message. */
  unknownWireIds: number;
  /**
   * Messages on the wire whose row has not passed `dispatched`, by the row's state. While a message is
   * unsettled its row may lag the wire (the workflow reports `dispatched` after the socket answered); a
   * settled one here (`expired`, `failed`) is a message on someone's phone that the lake says was never sent.
   */
  onWireNotDispatched: Record<string, number>;
  /** Messages whose row passed `dispatched` but whose WhatsApp id never reached the wire. */
  dispatchedNotOnWire: number;
  /** Messages (recipient and text) that reached the wire under more than one WhatsApp id. */
  underTwoIds: number;
}

const FINAL_STATES: ReadonlySet<string> = new Set(['read', 'failed', 'expired']);
const SENT_STATES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read']);

/** Whether a send state is final: the phase waits for every accepted message to reach one. */
export function isFinalSendState(state: string): boolean {
  return FINAL_STATES.has(state);
}

function isDispatchedState(state: string): boolean {
  return state === 'dispatched' || SENT_STATES.has(state);
}

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((total, count) => total + count, 0);
}

/**
 * Compares the lake's rows with the simulated WhatsApp's wire log, message by message: the totals alone
 * (distinct wire ids against rows past `dispatched`) cannot tell a message on the wire under two ids from a
 * row that has not caught up with the wire yet, so every wire id is matched to its row.
 */
export function measureChaosSend(rows: readonly ChaosSendRow[], wire: readonly WireSend[]): ChaosSendFigures {
  const rowByWaId = new Map(rows.map((row) => [row.wa_message_id, row]));
  const wireIds = new Set(wire.map((send) => send.messageId));
  const idsPerMessage = new Map<string, Set<string>>();
  for (const send of wire) {
    const key = `${send.jid}\n${send.text}`;
    idsPerMessage.set(key, (idsPerMessage.get(key) ?? new Set()).add(send.messageId));
  }
  const wireRows = [...wireIds].flatMap((id) => rowByWaId.get(id) ?? []);
  const unsettledRows = rows.filter((row) => !isFinalSendState(row.state));
  const dispatchedRows = rows.filter((row) => isDispatchedState(row.state));
  return {
    accepted: rows.length,
    sent: rows.filter((row) => SENT_STATES.has(row.state)).length,
    expired: rows.filter((row) => row.state === 'expired').length,
    failed: rows.filter((row) => row.state === 'failed').length,
    unsettled: unsettledRows.length,
    unsettledStates: countBy(unsettledRows, (row) => row.state),
    dispatched: dispatchedRows.length,
    wireSends: wire.length,
    distinctWireIds: wireIds.size,
    unknownWireIds: wireIds.size - wireRows.length,
    onWireNotDispatched: countBy(
      wireRows.filter((row) => !isDispatchedState(row.state)),
      (row) => row.state
    ),
    dispatchedNotOnWire: dispatchedRows.filter((row) => !wireIds.has(row.wa_message_id)).length,
    underTwoIds: [...idsPerMessage.values()].filter((ids) => ids.size > 1).length,
  };
}

/**
 * Whether the figures show the send contract held: every accepted message settled, each one on the wire
 * under exactly its own id and recorded as dispatched, and nothing on the wire the lake does not know.
 */
export function isChaosSendClean(figures: ChaosSendFigures): boolean {
  return (
    figures.unsettled === 0 &&
    figures.distinctWireIds === figures.dispatched &&
    sum(figures.onWireNotDispatched) === 0 &&
    figures.dispatchedNotOnWire === 0 &&
    figures.unknownWireIds === 0 &&
    figures.underTwoIds === 0
  );
}

/** `queued:2,delivered:1`, or `0` when empty: a count by state in one token of the closing line. */
export function formatStateCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  return entries.length === 0 ? '0' : entries.map(([state, count]) => `${state}:${count}`).join(',');
}
