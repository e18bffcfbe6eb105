import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { ingestEnvSchema } from '../../../ingest-api/config.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../../workflows/contracts.js';
import { workerEnvSchema } from '../../../worker/config.js';
import {
  envExampleKeys,
  interpolatedVariableNames,
  interpolationDefaults,
  loadComposeFile,
  loadComposeSpecSchema,
  markdownCodeNames,
  PROJECT_DIR,
  readProjectFile,
} from '../../helpers/compose-file.js';

// Static checks of docker-compose.temporal.yml: there is no Docker engine on these
// machines, so the file is parsed, validated against the Compose specification schema, linted with dclint,
// and cross-checked against the code it deploys.
const composeText = readProjectFile('docker-compose.temporal.yml');
const compose = loadComposeFile();
const services = compose.services;
const APP_SERVICES = ['ingest-api', 'worker', 'collector', 'lake-migrate'];
const ONE_SHOT_SERVICES = ['temporal-schema', 'temporal-setup', 'lake-migrate'];

function service(name: string) {
  const found = services[name];
  if (!found) throw new Error(`service ${name} missing from docker-compose.temporal.yml`);
  return found;
}

describe('docker-compose.temporal.yml', () => {
  it('validates against the Compose specification JSON schema', () => {
    // Ajv knows the draft-07 meta-schema under its http:// id; the bundled copy names it with https://.
    const schema = loadComposeSpecSchema();
    delete schema['$schema'];
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const raw: unknown = JSON.parse(JSON.stringify(compose));
    expect(validate(raw), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('has no errors under dclint, the Compose linter', () => {
    // dclint's package exports hide bin/, so resolve it from the package folder.
    const require = createRequire(import.meta.url);
    const dclintBin = join(dirname(require.resolve('dclint/package.json')), 'bin', 'dclint.cjs');
    const result = spawnSync(process.execPath, [dclintBin, '--quiet', '--color=false', 'docker-compose.temporal.yml'], {
      cwd: PROJECT_DIR,
      encoding: 'utf8',
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  }, 60_000); // dclint starts a fresh Node: 5.6 s measured on the shared host under load

  it('documents every interpolated variable in .env.example and docs/configuration.md', () => {
    const envKeys = envExampleKeys(readProjectFile('.env.example'));
    const documented = markdownCodeNames(readProjectFile('docs/configuration.md'));
    const variables = interpolatedVariableNames(composeText);
    expect(variables.length).toBeGreaterThan(5);
    expect(variables.filter((name) => !envKeys.has(name))).toEqual([]);
    expect(variables.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('pins every image to an explicit version and uses the current official Temporal images', () => {
    const images = Object.values(services).map((s) => s.image ?? '');
    for (const image of images.filter((i) => !i.startsWith('${'))) {
      expect(image).toMatch(/:[0-9][\w.-]*$/);
      expect(image).not.toMatch(/:latest$/);
    }
    expect(images).toContain('postgres:16');
    expect(images.some((i) => i.startsWith('temporalio/server:'))).toBe(true);
    expect(images.some((i) => i.startsWith('temporalio/admin-tools:'))).toBe(true);
    expect(images.some((i) => i.startsWith('temporalio/ui:'))).toBe(true);
    expect(images.some((i) => i.includes('auto-setup'))).toBe(false);
    const adminTools = new Set(
      images.filter((i) => i.startsWith('temporalio/admin-tools:')).map((i) => i.split(':')[1])
    );
    expect(adminTools).toEqual(new Set([service('temporal').image?.split(':')[1]]));
  });

  it('runs the three wa-lake processes from the one project image with their CLI commands', () => {
    const commands = Object.fromEntries(APP_SERVICES.map((name) => [name, service(name).command]));
    expect(commands).toEqual({
      'ingest-api': ['ingest-api'],
      worker: ['worker'],
      collector: ['collector'],
      'lake-migrate': ['migrate'],
    });
    const images = new Set(APP_SERVICES.map((name) => service(name).image));
    expect(images.size).toBe(1);
    for (const name of APP_SERVICES) expect(service(name).build).toBeDefined();
  });

  it('points every depends_on at an existing service, with a condition', () => {
    for (const [name, definition] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(definition.depends_on ?? {})) {
        expect(Object.keys(services), `${name} → ${dependency}`).toContain(dependency);
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') expect(services[dependency]?.healthcheck?.test, dependency).toBeDefined();
      }
    }
    expect(service('temporal').depends_on?.['temporal-schema']?.condition).toBe('service_completed_successfully');
    expect(service('ingest-api').depends_on?.['lake-migrate']?.condition).toBe('service_completed_successfully');
    expect(service('collector').depends_on?.['temporal-setup']?.condition).toBe('service_completed_successfully');
    expect(service('worker').depends_on?.['temporal-setup']?.condition).toBe('service_completed_successfully');
  });

  it('gives long-running services a restart policy and a healthcheck, one-shots a bounded restart', () => {
    for (const [name, definition] of Object.entries(services)) {
      if (ONE_SHOT_SERVICES.includes(name)) {
        expect(definition.restart, name).toMatch(/^on-failure(:\d+)?$/);
      } else {
        expect(definition.restart, name).toBe('unless-stopped');
      }
    }
    for (const name of ['temporal-postgresql', 'temporal', 'lake-postgresql', 'ingest-api', 'worker', 'collector']) {
      expect(service(name).healthcheck?.test, name).toBeDefined();
    }
    // ADR 0018: each wa-lake process has its own light check (bin/healthcheck.js, not the CLI).
    for (const name of ['collector', 'worker', 'ingest-api']) {
      expect(service(name).healthcheck?.test, name).toEqual(['CMD', 'node', '/app/bin/healthcheck.js', name]);
    }
  });

  it('keeps the auth state and the outbox on named volumes where the collector looks for them', () => {
    const collector = service('collector');
    expect(collector.volumes).toEqual(expect.arrayContaining(['wa-auth:/data/auth', 'wa-outbox:/data/outbox']));
    expect(collector.environment?.['AUTH_DIR']).toBe('/data/auth');
    expect(collector.environment?.['OUTBOX_PATH']).toMatch(/^\/data\/outbox\//);
    expect(Object.keys(compose.volumes ?? {})).toEqual(expect.arrayContaining(['wa-auth', 'wa-outbox']));
  });

  it('wires the worker to the ingest API and to Temporal inside the compose network', () => {
    const worker = service('worker').environment ?? {};
    const ingest = service('ingest-api').environment ?? {};
    expect(worker['WEBHOOK_URL']).toBe('http://ingest-api:${INGEST_PORT:-8080}/api/webhooks/whatsapp');
    expect(ingest['INGEST_HOST']).toBe('0.0.0.0');
    expect(worker['TEMPORAL_ADDRESS']).toBe('temporal:7233');
    expect(service('collector').environment?.['TEMPORAL_ADDRESS']).toBe('temporal:7233');
    // The send API starts sendMessage workflows (architecture.md §12); without this it would dial 127.0.0.1.
    expect(ingest['TEMPORAL_ADDRESS']).toBe('temporal:7233');
    expect(worker['WHATSAPP_WEBHOOK_SECRET']).toBe(ingest['WHATSAPP_WEBHOOK_SECRET']);
  });

  it('uses the same defaults as the zod schemas where it repeats one', () => {
    const ingestDefaults = ingestEnvSchema.parse({
      DATABASE_URL: 'postgres://x',
      WHATSAPP_WEBHOOK_SECRET: 'a'.repeat(32),
    });
    expect(interpolationDefaults(composeText, 'INGEST_PORT')).toEqual([String(ingestDefaults.INGEST_PORT)]);
  });

  it('gives the worker more stop time than its shutdown grace time, so a deploy never kills a POST in flight', () => {
    const seconds = Number(/^(\d+)s$/.exec(service('worker').stop_grace_period ?? '')?.[1]);
    const workerDefaults = workerEnvSchema.parse({
      WEBHOOK_URL: 'http://ingest-api:8080/x',
      WHATSAPP_WEBHOOK_SECRET: 'a'.repeat(32),
    });
    expect(seconds * 1000).toBeGreaterThan(workerDefaults.WORKER_SHUTDOWN_GRACE_TIME_MS);
  });

  it('registers exactly the search attributes that workflows/contracts.ts defines', () => {
    const script = readProjectFile('deploy/temporal/register-namespace.sh');
    const registered = [...script.matchAll(/\b(Wa[A-Za-z]+):(Keyword|Int)\b/g)].map((m) => ({
      name: m[1],
      cliType: m[2],
    }));
    expect(registered).toEqual(SEARCH_ATTRIBUTE_DEFINITIONS.map(({ name, cliType }) => ({ name, cliType })));
    expect(service('temporal-setup').command).toEqual(['/deploy/register-namespace.sh']);
    expect(service('temporal-schema').command).toEqual(['/deploy/setup-postgres-schema.sh']);
  });

  it('runs the Web UI read-only unless an operator turns write actions on (ADR 0022)', () => {
    const ui = service('temporal-ui').environment ?? {};
    expect(ui['TEMPORAL_DISABLE_WRITE_ACTIONS']).toBe('${TEMPORAL_UI_DISABLE_WRITE_ACTIONS:-true}');
  });

  it('mounts a dynamic config file that exists', () => {
    const temporal = service('temporal');
    const path = temporal.environment?.['DYNAMIC_CONFIG_FILE_PATH'] ?? '';
    expect(path.startsWith('/etc/temporal/config/dynamicconfig/')).toBe(true);
    expect(temporal.volumes).toContain('./deploy/temporal/dynamicconfig:/etc/temporal/config/dynamicconfig:ro');
    const fileName = path.split('/').pop() ?? '';
    expect(readProjectFile(`deploy/temporal/dynamicconfig/${fileName}`)).toContain(
      'system.forceSearchAttributesCacheRefreshOnRead'
    );
  });
});
