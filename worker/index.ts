/**
 * The worker's public entry point: what the CLI may use to run a worker (cli/README.md).
 * Everything else in this folder is internal and may change freely.
 */
export { loadWorkerConfig, type WorkerConfig } from './config.js';
export { runWorker, type RunningWorker, type RunWorkerOptions } from './run-worker.js';
export { installRuntimeLoggerOnce } from './runtime-logger.js';
export { startWorkerStatusFile, WORKER_STATUS_INTERVAL_MS, type WorkerStatus } from './status-file.js';
