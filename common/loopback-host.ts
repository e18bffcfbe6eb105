import { isIP } from 'node:net';

/**
 * `true` for a host only this machine reaches: `127.0.0.0/8`, `::1` (bracketed or not) and `localhost`. What goes
 * to such a host never crosses a network, so plain HTTP exposes nothing there (the ingest API's open `/metrics`,
 * ADR 0014; the send API key of `wa-lake send`).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}
