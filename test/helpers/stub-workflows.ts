import type { DeliverEventInput, DeliverEventResult } from '../../workflows/contracts.js';

/** Stand-in for the real `deliverEvent` (same name and input): completes at once as if the lake stored it. */
export async function deliverEvent(input: DeliverEventInput): Promise<DeliverEventResult> {
  return Promise.resolve({ eventId: input.eventId, status: 201, outcome: 'stored' });
}
