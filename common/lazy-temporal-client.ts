import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { createClosableConnectionInterceptors } from './closable-connection-interceptors.js';
import type { TemporalConnection } from './temporal-connection.js';

/** A Temporal client and the way to close the connection under it. */
export interface LazyTemporalClient {
  client: Client;
  /** Closes the connection (also when it was never opened). */
  close(): Promise<void>;
}

/**
 * A Temporal client whose connection opens on first use, so a process that starts while Temporal is
 * down keeps working and its calls retry later: the collector keeps capturing (architecture.md §6) and
 * the ingest API keeps accepting send requests that its sweeper starts afterwards (architecture.md §12).
 * Shared by the CLI's collector commands and the ingest API's send wiring.
 *
 * @param temporal - the process config's `temporal` (address, namespace, TLS, API key; ADR 0022).
 * @param dataConverter - from `createDataConverter(PAYLOAD_ENCRYPTION_KEYS)` (architecture.md §14); SDK default when omitted.
 */
export function createLazyTemporalClient(
  temporal: TemporalConnection,
  dataConverter?: DataConverter
): LazyTemporalClient {
  const guard = createClosableConnectionInterceptors();
  const connection = Connection.lazy({ ...temporal.connectionOptions, interceptors: guard.interceptors });
  return {
    client: new Client({ connection, namespace: temporal.namespace, dataConverter }),
    close: () => {
      guard.markClosing();
      return connection.close();
    },
  };
}
