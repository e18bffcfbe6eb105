import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** The interceptors for a client `Connection`, and the switch to flip just before closing it. */
export interface ClosableConnectionInterceptors {
  readonly interceptors: Interceptor[];
  /** From now on, a retry the SDK still has scheduled ends as CANCELLED instead of reaching the closed channel. */
  markClosing(): void;
}

/** What `InterceptingCall` wraps; grpc-js does not export the interface by name. */
type NextCall = ConstructorParameters<typeof InterceptingCall>[0];

const CLOSED_DETAILS = 'Temporal connection closed by this process';

/** A call that never reaches the channel: it ends at once with CANCELLED, which the SDK does not retry. */
function cancelledCall(): NextCall {
  return {
    start(_metadata, listener) {
      setImmediate(() =>
        listener?.onReceiveStatus?.({ code: status.CANCELLED, details: CLOSED_DETAILS, metadata: new Metadata() })
      );
    },
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    sendMessageWithContext: () => undefined,
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    getAuthContext: () => null,
  };
}

/**
 * The SDK's default retry interceptor followed by a guard. The SDK schedules each retry of a failed call on a timer
 * that closing the connection does not clear; when it fires, the closed gRPC channel throws "Channel has been shut
 * down" from the timer, an uncaught exception. Behind the guard, a retry after {@link markClosing} ends as CANCELLED,
 * so the caller's promise rejects and the process stops cleanly.
 */
export function createClosableConnectionInterceptors(): ClosableConnectionInterceptors {
  let closing = false;
  const guard: Interceptor = (options, nextCall) =>
    closing ? new InterceptingCall(cancelledCall()) : new InterceptingCall(nextCall(options));
  return {
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), guard],
    markClosing: () => {
      closing = true;
    },
  };
}
