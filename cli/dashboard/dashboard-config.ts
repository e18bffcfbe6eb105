import { z } from 'zod';
import { envInt, envPostgresUrl, parseConfig } from '../../common/config-schema.js';
import { envSecret } from '../../common/placeholder-secrets.js';

/**
 * Environment of `wa-lake dashboard` (ADR 0025, docs/engagement.md "Dashboard"); keys are the env var names.
 * The token is the password of HTTP Basic auth (any user name) or a bearer token.
 */
export const dashboardEnvSchema = z.object({
  DATABASE_URL: envPostgresUrl,
  DASHBOARD_HOST: z.string().min(1).default('127.0.0.1'),
  DASHBOARD_PORT: envInt(8687, 0, 65_535),
  /** Every request must carry it (Basic auth password or `Authorization: Bearer`); ≥ 16 characters. */
  DASHBOARD_TOKEN: envSecret,
  /**
   * How old the overview's numbers may be, in seconds (ADR 0034): pages are served from reports kept at most this
   * long, recounted in the background. 0 counts every page when asked (exact at commit, slow on a large lake).
   */
  DASHBOARD_REPORT_MAX_AGE_SECONDS: envInt(300, 0, 86_400),
});

/** Frozen, typed configuration of the dashboard. */
export type DashboardConfig = Readonly<z.output<typeof dashboardEnvSchema>>;

/**
 * Parses the dashboard's environment once (house style §5).
 * @throws ConfigError listing every invalid key (the token is never echoed).
 */
export function loadDashboardConfig(env: Readonly<Record<string, string | undefined>>): DashboardConfig {
  return parseConfig(dashboardEnvSchema, env);
}
