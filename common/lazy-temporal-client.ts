import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { createClosableConnectionInterceptors } from './closable-connection-interceptors.js';

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
 * @param address - `TEMPORAL_ADDRESS` (`host:port`).
 * @param namespace - `TEMPORAL_NAMESPACE`.
 * @param dataConverter - from `createDataConverter(PAYLOAD_ENCRYPTION_KEYS)` (architecture.md §14); SDK default when omitted.
 */
export function createLazyTemporalClient(
  address: string,
  namespace: string,
  dataConverter?: DataConverter
): LazyTemporalClient {
  const guard = createClosableConnectionInterceptors();
  const connection = Connection.lazy({ address, interceptors: guard.interceptors });
  return {
    client: new Client({ connection, namespace, dataConverter }),
    close: () => {
      guard.markClosing();
      return connection.close();
    },
  };
}
