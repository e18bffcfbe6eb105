/** gRPC status codes that refuse one workflow start, not the connection: a bad argument, a payload too large. */
const ROW_LEVEL_GRPC_CODES = new Set([3 /* INVALID_ARGUMENT */, 8 /* RESOURCE_EXHAUSTED: payload */]);

/**
 * The gRPC status code of a failed Temporal call: the first numeric `code` on the error or its `cause` chain
 * (the client wraps the gRPC error), at most four deep.
 *
 * @returns the code, or undefined when none of the errors carries one (a deadline, a local error).
 */
export function grpcCodeOf(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e != null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether a failed `workflow.start` was refused for this one start (its row is wrong) rather than for want of
 * Temporal: the rule the outbox relay and the send workflow starter share (architecture.md §6, §12). A start
 * that failed otherwise means Temporal is unreachable and the caller retries the whole backlog later.
 *
 * @param code - {@link grpcCodeOf} the start's error.
 */
export function isRowLevelStartFailure(code: number | undefined): boolean {
  return code !== undefined && ROW_LEVEL_GRPC_CODES.has(code);
}
