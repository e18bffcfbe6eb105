import { describe, expect, it } from 'vitest';
import { formatClientErrorResponse, toClientErrorAnswer } from '../../../ingest-api/app.js';

describe('toClientErrorAnswer', () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'WA_ERR_REQUEST_TIMEOUT'],
    ['HPE_HEADER_OVERFLOW', 431, 'WA_ERR_HEADERS_TOO_LARGE'],
    ['HPE_INVALID_METHOD', 400, 'WA_ERR_BAD_REQUEST'],
    ['HPE_INVALID_CONTENT_LENGTH', 400, 'WA_ERR_BAD_REQUEST'],
    [undefined, 400, 'WA_ERR_BAD_REQUEST'],
  ])('maps the parser code %s to %i %s', (nodeCode, statusCode, code) => {
    expect(toClientErrorAnswer(nodeCode)).toMatchObject({ statusCode, code });
  });
});

describe('formatClientErrorResponse', () => {
  it('writes a complete HTTP/1.1 response with a JSON body, its byte length and Connection: close', () => {
    expect(formatClientErrorResponse(toClientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT'))).toBe(
      'HTTP/1.1 408 Request Timeout\r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'Content-Length: 59\r\n' +
        'Connection: close\r\n' +
        '\r\n' +
        '{"error":"request timeout","code":"WA_ERR_REQUEST_TIMEOUT"}'
    );
  });
});
