import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SignedScopeRouteError } from '../errors.js';

/** What a signed scope's check established: the signed `X-Event-Id` and the raw body it was verified over. */
export interface SignedCall {
  id: string;
  raw: Buffer;
}

/** How the routes under one prefix are signed. */
export interface SignedScope {
  /** Every route of the scope starts with it, and every route that starts with it belongs to the scope. */
  prefix: string;
  /**
   * Optional `onRequest` check of the signature headers, before the body is read.
   *
   * @throws IngestHttpError `WA_ERR_MISSING_SIGNATURE`.
   */
  checkHeaders?: (request: FastifyRequest) => void;
  /**
   * The `preHandler` check over the raw bytes, given the registered path of the matched route.
   *
   * @throws IngestHttpError (401 for a request no secret signed).
   */
  verify: (request: FastifyRequest, path: string) => SignedCall;
}

const signedCalls = new WeakMap<FastifyRequest, SignedCall>();

/**
 * Registers `registerRoutes` inside an encapsulated plugin that owns `scope.prefix` (architecture.md §8,
 * ADR 0022): the plugin's one `preHandler` hook runs `scope.verify` over the raw body before any handler of
 * the scope, and `scope.checkHeaders` (when given) runs as its `onRequest` hook, so no route of the prefix can
 * skip the check. A route of the scope outside the prefix, or a route under the prefix registered elsewhere
 * after this call, throws {@link SignedScopeRouteError} at registration.
 */
export function registerSignedScope(
  app: FastifyInstance,
  scope: SignedScope,
  registerRoutes: (instance: FastifyInstance) => void
): void {
  let owner: FastifyInstance | undefined;
  app.addHook('onRoute', function refuseOutsideScope(this: FastifyInstance, route) {
    if (!route.url.startsWith(scope.prefix)) return;
    // Plugin instances inherit from their parent's, so a plugin nested in the scope is inside it too.
    if (owner === undefined || !(this === owner || Object.prototype.isPrototypeOf.call(owner, this))) {
      throw new SignedScopeRouteError(route.url, scope.prefix);
    }
  });
  void app.register((instance, _options, done) => {
    owner = instance;
    instance.addHook('onRoute', (route) => {
      if (!route.url.startsWith(scope.prefix)) throw new SignedScopeRouteError(route.url, scope.prefix);
    });
    const { checkHeaders } = scope;
    if (checkHeaders) {
      instance.addHook('onRequest', (request, _reply, next) => {
        checkHeaders(request);
        next();
      });
    }
    instance.addHook('preHandler', (request, _reply, next) => {
      signedCalls.set(request, scope.verify(request, request.routeOptions.url ?? request.url));
      next();
    });
    try {
      registerRoutes(instance);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
}

/**
 * The check's result for a request of a signed scope.
 *
 * @throws Error when `request` did not pass a signed scope's hook (a route registered outside its scope).
 */
export function signedCallOf(request: FastifyRequest): SignedCall {
  const call = signedCalls.get(request);
  if (call === undefined) throw new Error('request did not pass a signed scope');
  return call;
}
