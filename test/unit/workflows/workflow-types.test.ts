import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_WORKFLOW_TYPE, DELIVER_EVENT_WORKFLOW_TYPE } from '../../../workflows/contracts.js';
import { deadLetter, deliverEvent, deliverSendStatus } from '../../../workflows/index.js';
import { DELIVER_SEND_STATUS_WORKFLOW_TYPE } from '../../../workflows/send-contracts.js';

// Callers outside the worker start workflows by type name; the name must be the one the
// worker registers (the exported function's name), or the start waits forever on an unknown type.
describe('workflow type constants', () => {
  it('equal the names of the workflow functions the worker registers', () => {
    expect(DELIVER_EVENT_WORKFLOW_TYPE).toBe(deliverEvent.name);
    expect(DEAD_LETTER_WORKFLOW_TYPE).toBe(deadLetter.name);
    expect(DELIVER_SEND_STATUS_WORKFLOW_TYPE).toBe(deliverSendStatus.name);
  });
});
