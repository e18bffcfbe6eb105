import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer, type RunningTemporalDevServer } from '../../dev-stack/temporal-dev-server.js';
import { installRuntimeLoggerOnce } from '../../worker/runtime-logger.js';
import { silentLogger } from './silent-logger.js';
import { testDataConverter } from './temporal-env.js';

/** A real `temporal server start-dev` (SQLite in memory, headless) plus a client on it; one per test file. */
export interface DevTemporal {
  server: RunningTemporalDevServer;
  client: Client;
  close(): Promise<void>;
}

/**
 * Starts the dev server with the wa-lake search attributes registered (visibility queries work on it).
 * @param options.dbFile - SQLite file to keep the server's state in (default in memory).
 * @param options.dataConverter - the client's converter; default the test payload codec (architecture.md §14),
 *   `null` for the SDK default (payloads in clear).
 */
export async function startDevTemporal(
  options: { dbFile?: string; dataConverter?: DataConverter | null } = {}
): Promise<DevTemporal> {
  installRuntimeLoggerOnce(silentLogger());
  const server = await startTemporalDevServer({
    cliPath: resolveTemporalCliPath(process.env),
    uiPort: null,
    dbFile: options.dbFile,
  });
  const connection = await Connection.connect({ address: server.address });
  const dataConverter = options.dataConverter === null ? undefined : (options.dataConverter ?? testDataConverter());
  const client = new Client({ connection, namespace: 'default', dataConverter });
  return {
    server,
    client,
    async close() {
      await connection.close();
      await server.stop();
    },
  };
}
