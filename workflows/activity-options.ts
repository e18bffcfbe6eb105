import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Retry of an activity that must succeed in the end: 1 s doubling, capped at 1 min, no attempt limit. */
const RETRY_UNTIL_DONE: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' };

/**
 * Retry of an HTTP delivery to a receiver that may be down for a while (the lake's ingest API, a customer's status
 * webhook): 1 s doubling, capped at 5 min, no attempt limit (architecture.md §7).
 */
export const DELIVERY_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m' };

/**
 * The workflows' bookkeeping activities (dead letters, send transitions, gate slots, pausing an account): each
 * attempt gets 30 s and the activity is retried until it succeeds.
 */
export const BOOKKEEPING_ACTIVITY_OPTIONS: ActivityOptions = { startToCloseTimeout: '30s', retry: RETRY_UNTIL_DONE };

/**
 * `sendAlert`, a local activity: it only calls the worker's in-process windowed sink, so it runs inside the workflow
 * task and thousands of blocked runs cost no extra task round-trips (ADR 0002). Same budget and retry as bookkeeping.
 */
export const ALERT_ACTIVITY_OPTIONS: LocalActivityOptions = { startToCloseTimeout: '30s', retry: RETRY_UNTIL_DONE };
