import { METADATA_ENCODING_KEY, type Payload, type SerializationContext } from '@temporalio/common';

/**
 * The one payload the Temporal server writes itself, in clear, into a history a wa-lake worker reads: the
 * `details` of `ActivityTaskCanceled` when a workflow cancels an activity no worker has started
 * (`payloads.EncodeString("ACTIVITY_ID_NOT_STARTED")` in the server's workflow-task-completed handler). It
 * reaches the workflow as the details of the activity's `CancelledFailure` (ADR 0026).
 */
export const ACTIVITY_NOT_STARTED_DETAIL = 'ACTIVITY_ID_NOT_STARTED';

const SERVER_ENCODING = 'json/plain';
const SERVER_DATA = JSON.stringify(ACTIVITY_NOT_STARTED_DETAIL);
const fromUtf8 = new TextDecoder();

/**
 * Whether a clear payload is the server's own detail of an activity cancelled before it started (ADR 0026): its
 * exact bytes (`json/plain`, `"ACTIVITY_ID_NOT_STARTED"`, no other metadata) in the resolution of an activity
 * (an activity serialization context, not a local activity). Workflow inputs, signal, update and query arguments
 * are decoded in a workflow context, so this never lets a clear one through.
 */
export function isServerWrittenDetail(payload: Payload, context?: SerializationContext): boolean {
  if (context?.type !== 'activity' || context.isLocal) return false;
  const metadata = payload.metadata ?? {};
  const keys = Object.keys(metadata);
  const encoding = metadata[METADATA_ENCODING_KEY];
  if (keys.length !== 1 || !encoding || fromUtf8.decode(encoding) !== SERVER_ENCODING) return false;
  return payload.data !== null && payload.data !== undefined && fromUtf8.decode(payload.data) === SERVER_DATA;
}
