/** The `ERASURE_KEY` tests erase and ingest with (ADR 0027): the same on both sides, as a deployment must. */
export const TEST_ERASURE_KEY = 'test-erasure-key-0123456789abcdef0123456789abcdef';
