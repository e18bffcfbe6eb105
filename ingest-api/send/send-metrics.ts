import { Counter, Histogram, type Registry } from 'prom-client';

/** Prometheus metrics of outbound send (architecture.md §12 "Operations"). */
export interface SendMetrics {
  /** `wa_send_accepted_total{category}`: requests committed (202). */
  accepted: Counter<'category'>;
  /**
   * `wa_send_state_latency_seconds{state}`: time from acceptance (`queued`) to reaching `state`
   * (dispatched, sent, delivered, read), in seconds of workflow time.
   */
  stateLatency: Histogram<'state'>;
  /** `wa_send_failures_total{state, reason}`: messages ending `failed` or `expired`, by reason code. */
  failures: Counter<'state' | 'reason'>;
}

/** Registers the send metrics in `registry` (the ingest API's own registry, served at `GET /metrics`). */
export function createSendMetrics(registry: Registry): SendMetrics {
  return {
    accepted: new Counter({
      name: 'wa_send_accepted_total',
      help: 'Outbound messages accepted by POST /api/v1/messages, by category',
      labelNames: ['category'],
      registers: [registry],
    }),
    stateLatency: new Histogram({
      name: 'wa_send_state_latency_seconds',
      help: 'Seconds from acceptance (queued) to each later state of an outbound message',
      labelNames: ['state'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
      registers: [registry],
    }),
    failures: new Counter({
      name: 'wa_send_failures_total',
      help: 'Outbound messages that ended failed or expired, by reason code',
      labelNames: ['state', 'reason'],
      registers: [registry],
    }),
  };
}
