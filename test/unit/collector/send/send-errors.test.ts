import { describe, expect, it } from 'vitest';
import {
  InvalidPayloadError,
  RecipientBlockedError,
  SendServerError,
  SessionLoggedOutError,
  SessionNotConnectedError,
  toSendError,
} from '../../../../collector/send/send-errors.js';

const boom = (statusCode: number): Error =>
  Object.assign(new Error('same text every time'), { isBoom: true, output: { statusCode } });

describe('toSendError (architecture.md §12: classified by type, not by text)', () => {
  it.each([
    [401, SessionLoggedOutError, false],
    [403, RecipientBlockedError, false],
    [400, InvalidPayloadError, false],
    [406, InvalidPayloadError, false],
    [408, SessionNotConnectedError, true],
    [428, SessionNotConnectedError, true],
    [440, SessionNotConnectedError, true],
    [500, SendServerError, true],
  ])('classifies Boom status %i by its code alone', (status, expected, isRetryable) => {
    const error = toSendError(boom(status));
    expect(error).toBeInstanceOf(expected);
    expect(error.isRetryable).toBe(isRetryable);
    expect(error.failureType).toBe(error.name);
  });

  it('treats an error without a status as a retryable server error (the WhatsApp id is stable)', () => {
    expect(toSendError(new Error('logged out'))).toBeInstanceOf(SendServerError);
  });
});
