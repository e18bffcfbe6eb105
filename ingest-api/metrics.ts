import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The ingest API's Prometheus metrics, in a registry of their own (never the global one). */
export interface IngestMetrics {
  registry: Registry;
  /** `wa_ingest_requests_total{status}`: answers of the ingest endpoint by HTTP status. */
  requests: Counter<'status'>;
  /** `wa_ingest_insert_duration_seconds`: raw insert + projections + commit, in seconds. */
  insertDuration: Histogram;
  /** `wa_ingest_insert_batch_rows`: rows written per group-commit statement (ADR 0006). */
  insertBatchRows: Histogram;
  /** `wa_ingest_duplicates_total`: deliveries of an event_id already stored (200). */
  duplicates: Counter;
  /** `wa_ingest_sanitized_total`: rows stored with `sanitized = true`. */
  sanitized: Counter;
  /** `wa_ingest_projection_errors_total`: projection failures recorded (raw row kept). */
  projectionErrors: Counter;
}

/**
 * Creates the metrics of one ingest API instance (architecture.md §8 `GET /metrics`).
 * @param options.withDefaultMetrics - also collect process metrics (heap, event loop); off in tests.
 */
export function createIngestMetrics(options: { withDefaultMetrics?: boolean } = {}): IngestMetrics {
  const registry = new Registry();
  if (options.withDefaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'wa_ingest_requests_total',
      help: 'Ingest requests by HTTP status',
      labelNames: ['status'],
      registers: [registry],
    }),
    insertDuration: new Histogram({
      name: 'wa_ingest_insert_duration_seconds',
      help: 'Time to store one event (insert, projections, commit) in seconds',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    insertBatchRows: new Histogram({
      name: 'wa_ingest_insert_batch_rows',
      help: 'Raw rows written per group-commit INSERT statement',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'wa_ingest_duplicates_total',
      help: 'Deliveries of an already stored event_id',
      registers: [registry],
    }),
    sanitized: new Counter({
      name: 'wa_ingest_sanitized_total',
      help: 'Events stored after sanitizing',
      registers: [registry],
    }),
    projectionErrors: new Counter({
      name: 'wa_ingest_projection_errors_total',
      help: 'Projection failures recorded',
      registers: [registry],
    }),
  };
}
