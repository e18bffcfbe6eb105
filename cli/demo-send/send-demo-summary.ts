import { SEND_STATE_RANK, type SendState } from '../../workflows/send-contracts.js';
import type { WireSend } from './simulated-whatsapp.js';

/** One accepted message as PostgreSQL holds it, with the state the demo expects. */
export interface ObservedMessage {
  id: string;
  label: string;
  toJid: string;
  text: string;
  waMessageId: string;
  state: SendState;
  reasonCode: string | null;
  expected: SendState;
}

/**
 * What `wa-lake demo-send` prints as its last line. `dispatched`/`sent`/`delivered`/`read`
 * count messages that reached at least that state (a funnel: a read message was also sent); `failed`
 * and `expired` are final states. Wire figures come from the simulated socket's log.
 */
export interface SendDemoSummary {
  requested: number;
  accepted: number;
  /** Same Idempotency-Key and body sent again: the first 202 again (`Idempotent-Replayed: true`), nothing new sent. */
  idempotentReplays: number;
  dispatched: number;
  /** Messages still `dispatched` at the end (their ACK never came): never re-sent. */
  awaitingAck: number;
  wireSends: number;
  distinctWireIds: number;
  /** Wire sends that repeated an id already on the wire (same message, retried after a timeout). */
  resentSameId: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  expired: number;
  /** WhatsApp ids sent with different contents, plus messages that reached the wire under more than one id. */
  duplicatesOnWire: number;
  /** Wire ids no accepted message owns, and failed/expired messages found on the wire. */
  unexpectedWireSends: number;
  /** Lake rows (`whatsapp_event_logs`) of ACK events in the demo groups: our ACKs never enter the lake (item 5). */
  ownAcksInLake: number;
  /** Messages sent from a template (rendered at accept), and the refusals of ADR 0015. */
  templateSends: number;
  /** Messages whose text links to the demo's page, and those of them that reached the wire with a preview. */
  linkSends: number;
  linkPreviews: number;
  /** Answer to a test key sending to a number that is no test recipient (expected 403). */
  testKeyRefusal: { status: number; code: string };
  /** Answer to one request past the key's daily quota (expected 429). */
  quotaRefusal: { status: number; code: string };
  /** Accepted messages whose state differs from the scenario's expectation. */
  mismatches: Array<{ label: string; expected: SendState; actual: SendState }>;
  elapsedMs: number;
  ok: boolean;
}

const reached = (messages: readonly ObservedMessage[], state: SendState): number =>
  messages.filter(
    (m) => m.state !== 'failed' && m.state !== 'expired' && SEND_STATE_RANK[m.state] >= SEND_STATE_RANK[state]
  ).length;

/** Counts duplicates on the wire: ids carrying more than one content, and contents carried by more than one id. */
export function countWireDuplicates(wire: readonly WireSend[]): number {
  const contentsById = new Map<string, Set<string>>();
  const idsByContent = new Map<string, Set<string>>();
  for (const send of wire) {
    const content = JSON.stringify([send.jid, send.text]);
    contentsById.set(send.messageId, (contentsById.get(send.messageId) ?? new Set()).add(content));
    idsByContent.set(content, (idsByContent.get(content) ?? new Set()).add(send.messageId));
  }
  const conflictingIds = [...contentsById.values()].filter((contents) => contents.size > 1).length;
  const splitMessages = [...idsByContent.values()].filter((ids) => ids.size > 1).length;
  return conflictingIds + splitMessages;
}

/** Builds the summary from what is observable: request answers, PostgreSQL rows and the wire log. */
export function summarizeSendDemo(input: {
  requested: number;
  accepted: number;
  idempotentReplays: number;
  expectedReplays: number;
  messages: readonly ObservedMessage[];
  wire: readonly WireSend[];
  ownAcksInLake: number;
  elapsedMs: number;
  templateSends: number;
  linkSends: number;
  testKeyRefusal: { status: number; code: string };
  quotaRefusal: { status: number; code: string };
}): SendDemoSummary {
  const { messages, wire } = input;
  const owners = new Map(messages.map((m) => [m.waMessageId, m]));
  const unexpectedWireSends = wire.filter((send) => {
    const owner = owners.get(send.messageId);
    return owner === undefined || owner.state === 'failed' || owner.state === 'expired';
  }).length;
  const distinctWireIds = new Set(wire.map((send) => send.messageId)).size;
  const mismatches = messages
    .filter((m) => m.state !== m.expected)
    .map((m) => ({ label: m.label, expected: m.expected, actual: m.state }));
  const summary: Omit<SendDemoSummary, 'ok'> = {
    requested: input.requested,
    accepted: input.accepted,
    idempotentReplays: input.idempotentReplays,
    dispatched: reached(messages, 'dispatched'),
    awaitingAck: messages.filter((m) => m.state === 'dispatched').length,
    wireSends: wire.length,
    distinctWireIds,
    resentSameId: wire.length - distinctWireIds,
    sent: reached(messages, 'sent'),
    delivered: reached(messages, 'delivered'),
    read: reached(messages, 'read'),
    failed: messages.filter((m) => m.state === 'failed').length,
    expired: messages.filter((m) => m.state === 'expired').length,
    duplicatesOnWire: countWireDuplicates(wire),
    unexpectedWireSends,
    ownAcksInLake: input.ownAcksInLake,
    templateSends: input.templateSends,
    linkSends: input.linkSends,
    linkPreviews: new Set(wire.filter((send) => send.linkPreview).map((send) => send.messageId)).size,
    testKeyRefusal: input.testKeyRefusal,
    quotaRefusal: input.quotaRefusal,
    mismatches,
    elapsedMs: input.elapsedMs,
  };
  const ok =
    summary.accepted === summary.requested &&
    summary.accepted === messages.length &&
    input.idempotentReplays === input.expectedReplays &&
    summary.duplicatesOnWire === 0 &&
    unexpectedWireSends === 0 &&
    input.ownAcksInLake === 0 &&
    mismatches.length === 0 &&
    summary.dispatched === distinctWireIds &&
    input.templateSends > 0 &&
    summary.linkPreviews === input.linkSends &&
    input.testKeyRefusal.status === 403 &&
    input.quotaRefusal.status === 429;
  return { ...summary, ok };
}

/**
 * Rows of `label : value` with every colon in one column (the widest label sets it), indented by `indent`.
 * Values are never padded, so no line ends in spaces.
 */
export function alignLabelColumn(rows: ReadonlyArray<readonly [string, string]>, indent: string): string[] {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)} : ${value}`);
}

/** One line per message: label, state and reason in columns as wide as their widest entry. */
function messageLines(messages: readonly ObservedMessage[]): string[] {
  const labelWidth = Math.max(0, ...messages.map((m) => m.label.length));
  const stateWidth = Math.max(0, ...messages.map((m) => m.state.length));
  return messages.map((m) => {
    const reason = m.reasonCode ? ` (${m.reasonCode})` : '';
    const mismatch = m.state === m.expected ? '' : `  ≠ expected ${m.expected}`;
    return `    ${m.label.padEnd(labelWidth)}  ${m.state.padEnd(stateWidth)}${reason}${mismatch}`.trimEnd();
  });
}

/** The human part of the output (before the JSON line), one string with a trailing newline. */
export function formatSendDemoSummary(summary: SendDemoSummary, messages: readonly ObservedMessage[]): string {
  const s = summary;
  const lines = [
    'wa-lake demo-send — the whole send path against a simulated WhatsApp (no network)',
    ...alignLabelColumn(
      [
        [
          'requests',
          `${s.requested} · accepted (202) ${s.accepted} · idempotent replays (202, replayed) ${s.idempotentReplays}`,
        ],
        ['reached', `dispatched ${s.dispatched} · sent ${s.sent} · delivered ${s.delivered} · read ${s.read}`],
        ['ended', `failed ${s.failed} · expired ${s.expired} · awaiting an ACK ${s.awaitingAck}`],
        [
          'on the wire',
          `${s.wireSends} sends · ${s.distinctWireIds} distinct WhatsApp ids · same id re-sent ${s.resentSameId}`,
        ],
        ['duplicates on wire', `${s.duplicatesOnWire} · unexpected sends ${s.unexpectedWireSends}`],
        ['our ACKs in the lake', `${s.ownAcksInLake}`],
        [
          'send contract',
          `template sends ${s.templateSends} · link previews ${s.linkPreviews} of ${s.linkSends} · test key to a ` +
            `stranger ${s.testKeyRefusal.status} ${s.testKeyRefusal.code} · past the daily quota ` +
            `${s.quotaRefusal.status} ${s.quotaRefusal.code}`,
        ],
        ['messages', `${messages.length}`],
      ],
      '  '
    ),
    ...messageLines(messages),
    s.ok
      ? `  OK: every accepted message ended as expected, none reached WhatsApp twice (${(s.elapsedMs / 1000).toFixed(1)} s)`
      : `  NOT OK: ${describeProblems(s).join('; ')}`,
  ];
  return `${lines.join('\n')}\n`;
}

function describeProblems(summary: SendDemoSummary): string[] {
  const problems = [
    summary.accepted !== summary.requested ? `${summary.requested - summary.accepted} requests not accepted` : '',
    summary.idempotentReplays !== 1 ? 'the idempotent replay did not return the same message' : '',
    summary.duplicatesOnWire > 0 ? `${summary.duplicatesOnWire} duplicates on the wire` : '',
    summary.unexpectedWireSends > 0 ? `${summary.unexpectedWireSends} sends that should not have happened` : '',
    summary.ownAcksInLake > 0 ? `${summary.ownAcksInLake} of our ACKs entered the lake` : '',
    summary.mismatches.length > 0 ? `${summary.mismatches.length} messages not in their expected state (≠ above)` : '',
    summary.dispatched !== summary.distinctWireIds ? 'dispatched messages ≠ distinct WhatsApp ids on the wire' : '',
    summary.templateSends === 0 ? 'no template send' : '',
    summary.testKeyRefusal.status !== 403 ? `the test key was answered ${summary.testKeyRefusal.status}, not 403` : '',
    summary.quotaRefusal.status !== 429
      ? `the request past the quota was answered ${summary.quotaRefusal.status}, not 429`
      : '',
  ];
  return problems.filter((problem) => problem !== '');
}
