import { DELIVER_EVENT_WORKFLOW_TYPE } from '../../workflows/contracts.js';
import { SEND_MESSAGE_WORKFLOW_TYPE, sendWorkflowId } from '../../workflows/send-contracts.js';

/** Workflow ids per `temporal workflow list` query: a visibility query stays well under its size limit. */
const IDS_PER_QUERY = 100;
/** Queries printed in the not-reached list; `forget --json` carries all of them. */
const QUERIES_PRINTED = 3;

/** The Temporal histories an erasure cannot rewrite (ADR 0014 decision 5), and the queries that find them. */
export interface TemporalHistories {
  deliverEventWorkflowIds: string[];
  sendMessageWorkflowIds: string[];
  /** One `temporal workflow list …` command line per chunk of ids. */
  queries: string[];
}

const quote = (id: string): string => `'${id.replaceAll("'", '')}'`;

function listCommands(namespace: string, workflowType: string, ids: readonly string[]): string[] {
  const commands: string[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
    const chunk = ids
      .slice(start, start + IDS_PER_QUERY)
      .map(quote)
      .join(', ');
    commands.push(
      `temporal workflow list --namespace ${namespace} ` +
        `--query "WorkflowType = '${workflowType}' AND WorkflowId IN (${chunk})"`
    );
  }
  return commands;
}

/**
 * The histories that still hold the member's data: each `deliverEvent` whose event named them (the event body is
 * its input) and each `sendMessage` of a message sent to them (recipient, text and metadata are its input).
 */
export function temporalHistoriesOf(
  namespace: string,
  eventIds: Iterable<string>,
  sentMessageIds: readonly string[]
): TemporalHistories {
  const deliverEventWorkflowIds = [...new Set(eventIds)].sort();
  const sendMessageWorkflowIds = sentMessageIds.map(sendWorkflowId).sort();
  return {
    deliverEventWorkflowIds,
    sendMessageWorkflowIds,
    queries: [
      ...listCommands(namespace, DELIVER_EVENT_WORKFLOW_TYPE, deliverEventWorkflowIds),
      ...listCommands(namespace, SEND_MESSAGE_WORKFLOW_TYPE, sendMessageWorkflowIds),
    ],
  };
}

/**
 * The not-reached lines for Temporal: what its histories keep, until when, whether in clear, and the queries
 * (the first few; `--json` has all) that list them; a cancel query for messages still being sent.
 */
export function temporalHistoryLines(
  histories: TemporalHistories,
  options: { namespace: string; payloadsEncrypted: boolean; unfinishedMessageIds: readonly string[] }
): string[] {
  const stored = options.payloadsEncrypted
    ? 'encrypted at rest (PAYLOAD_ENCRYPTION_KEYS is set here)'
    : 'in clear text if the collector ran without PAYLOAD_ENCRYPTION_KEYS (it is not set here)';
  const count = histories.deliverEventWorkflowIds.length + histories.sendMessageWorkflowIds.length;
  const lines = [
    'Temporal workflow histories: each deliverEvent input holds its event body and each sendMessage input the ' +
      'recipient, text and metadata until the namespace retention ends (TEMPORAL_NAMESPACE_RETENTION); ' +
      `${stored}; ${count} of them concern this member`,
    ...histories.queries.slice(0, QUERIES_PRINTED).map((query) => `Temporal histories, found by: ${query}`),
  ];
  if (histories.queries.length > QUERIES_PRINTED)
    lines.push(
      `Temporal histories: ${histories.queries.length - QUERIES_PRINTED} more queries (forget --json lists them all)`
    );
  if (options.unfinishedMessageIds.length > 0) {
    const ids = options.unfinishedMessageIds.map((id) => quote(sendWorkflowId(id))).join(', ');
    lines.push(
      `sendMessage workflows still sending to this member (${options.unfinishedMessageIds.length}): their input ` +
        `keeps the recipient and may still be sent; stop them with temporal workflow cancel --namespace ` +
        `${options.namespace} --query "WorkflowId IN (${ids})"`
    );
  }
  return lines;
}

/** The visibility query of `deliverEvent` workflows still running (ADR 0027). */
export const RUNNING_DELIVERIES_QUERY = `WorkflowType = '${DELIVER_EVENT_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;

/**
 * The not-reached line for deliveries in flight (ADR 0027): their inputs hold event bodies as captured, which
 * `forget` cannot rewrite; the lake stores any of them that concerns the member pseudonymized when it arrives, so
 * the line informs, it does not ask the operator to act. `count` null: Temporal could not count them.
 */
export function runningDeliveriesLine(namespace: string, count: number | null, reason?: string): string {
  const list = `temporal workflow list --namespace ${namespace} --query "${RUNNING_DELIVERIES_QUERY}"`;
  const what =
    count === null
      ? `deliverEvent workflows still running: not counted (${reason ?? 'Temporal not reachable'})`
      : `deliverEvent workflows still running: ${count}`;
  return (
    `${what}; their inputs keep event bodies as captured (this member's may be among them) until retention, and ` +
    `the lake stores any of them that names this member pseudonymized when it arrives (erasure tombstones); ` +
    `list them with: ${list}`
  );
}
