import type { FastifyInstance, RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { buildApp, type IngestAppDeps } from '../../../ingest-api/app.js';
import { createIngestMetrics } from '../../../ingest-api/metrics.js';
import { WEBHOOKS_PREFIX } from '../../../ingest-api/routes/ingest-route.js';
import { SignedScopeRouteError } from '../../../ingest-api/errors.js';
import { registerSignedScope } from '../../../ingest-api/routes/signed-scope.js';
import { INTERNAL_API_PREFIX } from '../../../ingest-api/routes/verify-internal-request.js';
import { silentLogger } from '../../helpers/silent-logger.js';

const SIGNED_PREFIXES = [WEBHOOKS_PREFIX, INTERNAL_API_PREFIX];

function notReached(): never {
  throw new Error('a handler ran for an unsigned request');
}

/** Every dependency a handler could reach fails the test: an unsigned request must stop at the hook. */
function appWithEveryRoute(): FastifyInstance {
  const deps: IngestAppDeps = {
    webhookSecrets: ['test-secret-aaaaaaaaaaaaaaaa'],
    bodyLimitBytes: 64 * 1024,
    repository: { store: notReached, ping: notReached },
    metrics: createIngestMetrics(),
    logger: silentLogger(),
    send: {
      apiKeys: { find: notReached, findFresh: notReached, forget: notReached },
      intents: { submit: notReached },
      claims: { claim: notReached, release: notReached },
      messages: { get: notReached, recordTransition: notReached },
      onAccepted: notReached,
      textMaxChars: 100,
      templates: { resolve: notReached },
      statusWebhooks: {
        targets: { find: notReached, recordOutcome: notReached },
        encryptionKeys: envPayloadEncryptionKeys.parse(`test1:${Buffer.alloc(32, 7).toString('base64')}`),
      },
    },
  };
  return buildApp(deps);
}

describe('registerSignedScope', () => {
  it('refuses an unsigned request to every route under a signed prefix, whoever registered it', async () => {
    const app = appWithEveryRoute();
    const signedRoutes: Array<Pick<RouteOptions, 'method' | 'url'>> = [];
    // Added before `ready`: the scopes' routes are registered when their plugins load, so each one passes here.
    app.addHook('onRoute', (route) => {
      if (SIGNED_PREFIXES.some((prefix) => route.url.startsWith(prefix))) signedRoutes.push(route);
    });
    await app.ready();
    expect(signedRoutes.map((route) => route.url)).toEqual(
      expect.arrayContaining([
        '/api/webhooks/whatsapp',
        '/api/internal/send-transitions',
        '/api/internal/send-starts',
        '/api/internal/send-status-webhooks',
        '/api/internal/send-status-webhook-outcomes',
      ])
    );
    for (const route of signedRoutes) {
      for (const method of [route.method].flat()) {
        const response = await app.inject({
          method,
          url: route.url,
          headers: { 'content-type': 'application/json' },
          payload: '{"message_id":"00000000-0000-4000-8000-000000000000"}',
        });
        expect({ method, url: route.url, status: response.statusCode }).toEqual({
          method,
          url: route.url,
          status: 401,
        });
        expect(response.json()).toMatchObject({ code: 'WA_ERR_MISSING_SIGNATURE' });
      }
    }
    await app.close();
  });

  it('refuses, at registration, a route under a signed prefix added outside its scope', async () => {
    const app = appWithEveryRoute();
    void app.register((instance, _options, done) => {
      try {
        instance.post(`${INTERNAL_API_PREFIX}forgotten`, () => ({ ok: true }));
        done();
      } catch (err) {
        done(err as Error);
      }
    });
    await expect(app.ready()).rejects.toBeInstanceOf(SignedScopeRouteError);
  });

  it('refuses, at registration, a route of a signed scope outside its prefix', async () => {
    const app = appWithEveryRoute();
    registerSignedScope(app, { prefix: '/api/signed/', verify: () => ({ id: '', raw: Buffer.alloc(0) }) }, (scope) =>
      scope.post('/api/elsewhere', () => ({ ok: true }))
    );
    await expect(app.ready()).rejects.toBeInstanceOf(SignedScopeRouteError);
  });
});
