/**
 * The worker's `workflowsPath`: exports workflow functions and nothing else (house style §1).
 * Signals, queries and types live in `./contracts.ts`.
 */
export { deliverEvent } from './deliver-event.js';
export { deadLetter } from './dead-letter.js';
export { alertWindow } from './alert-window.js';
export { sendMessage } from './send-message.js';
export { sendGate } from './send-gate.js';
export { deliverSendStatus } from './deliver-send-status.js';
