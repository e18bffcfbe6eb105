import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DatabaseBusyError, DatabaseUnavailableError } from '../../../lake/errors.js';
import { isPoolCheckoutTimeout, toDatabaseAvailabilityError } from '../../../lake/pool.js';

// The message pg-pool rejects a checkout with after `connectionTimeoutMillis` (node_modules/pg-pool/index.js).
const checkoutTimeout = (): Error => new Error('timeout exceeded when trying to connect');

describe('isPoolCheckoutTimeout', () => {
  it("recognizes pg-pool's checkout timeout and nothing else", () => {
    expect(isPoolCheckoutTimeout(checkoutTimeout())).toBe(true);
    expect(isPoolCheckoutTimeout(new Error('Connection terminated due to connection timeout'))).toBe(false);
    expect(isPoolCheckoutTimeout(new TypeError('timeout exceeded when trying to connect'))).toBe(false);
    expect(isPoolCheckoutTimeout('timeout exceeded when trying to connect')).toBe(false);
  });
});

describe('toDatabaseAvailabilityError', () => {
  it('maps a checkout timeout to busy, connection failures to unavailable, statement errors to undefined', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const shuttingDown = new pg.DatabaseError('the database system is shutting down', 0, 'error');
    shuttingDown.code = '57P03';
    const outOfRange = new pg.DatabaseError('numeric field overflow', 0, 'error');
    outOfRange.code = '22003';
    expect(toDatabaseAvailabilityError(checkoutTimeout())).toBeInstanceOf(DatabaseBusyError);
    expect(toDatabaseAvailabilityError(refused)).toBeInstanceOf(DatabaseUnavailableError);
    expect(toDatabaseAvailabilityError(shuttingDown)).toBeInstanceOf(DatabaseUnavailableError);
    expect(toDatabaseAvailabilityError(outOfRange)).toBeUndefined();
  });
});
