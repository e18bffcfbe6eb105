import { Client, Connection } from '@temporalio/client';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer, type RunningTemporalDevServer } from '../../dev-stack/temporal-dev-server.js';
import { installRuntimeLoggerOnce } from '../../worker/runtime-logger.js';
import { silentLogger } from './silent-logger.js';

/** A real `temporal server start-dev` (SQLite in memory, headless) plus a client on it; one per test file. */
export interface DevTemporal {
  server: RunningTemporalDevServer;
  client: Client;
  close(): Promise<void>;
}

/** Starts the dev server with the wa-lake search attributes registered (visibility queries work on it). */
export async function startDevTemporal(): Promise<DevTemporal> {
  installRuntimeLoggerOnce(silentLogger());
  const server = await startTemporalDevServer({ cliPath: resolveTemporalCliPath(process.env), uiPort: null });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    server,
    client,
    async close() {
      await connection.close();
      await server.stop();
    },
  };
}
