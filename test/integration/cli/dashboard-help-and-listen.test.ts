import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// The dashboard is configured by environment variables only: its help names them, and a host that does not
// resolve is reported with the variable that set it, not as a bare `getaddrinfo ENOTFOUND`.
describe('wa-lake dashboard help and listen errors', () => {
  it('names DASHBOARD_TOKEN, DASHBOARD_HOST, DASHBOARD_PORT and DASHBOARD_REPORT_MAX_AGE_SECONDS in its help', async () => {
    const run = await runCli(['dashboard', '--help']);
    expect(run.code).toBe(0);
    for (const name of [
      'DASHBOARD_TOKEN',
      'DASHBOARD_HOST',
      'DASHBOARD_PORT',
      'DASHBOARD_REPORT_MAX_AGE_SECONDS',
      'DATABASE_URL',
    ])
      expect(run.stdout).toContain(name);
    expect(run.stdout).toMatch(/DASHBOARD_TOKEN\s+required/);
  }, 60_000);

  it('keeps the top-level listing to one line for the dashboard', async () => {
    const run = await runCli(['--help']);
    expect(run.stdout).not.toContain('DASHBOARD_TOKEN');
  }, 60_000);

  it('says the default of report --max-age once, as commander writes it', async () => {
    const run = await runCli(['report', '--help']);
    expect(run.code).toBe(0);
    const maxAge = run.stdout.slice(run.stdout.indexOf('--max-age'));
    expect(maxAge.slice(0, maxAge.indexOf('(default: 0)'))).not.toMatch(/default 0/);
    expect(run.stdout).toContain('(default: 0)');
  }, 60_000);

  it('names DASHBOARD_HOST when the host does not resolve, with exit code 1', async () => {
    const run = await runCli(['dashboard'], {
      env: {
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
        DASHBOARD_TOKEN: 'a-dashboard-token-of-enough-length',
        DASHBOARD_HOST: 'nohost.invalid',
        DASHBOARD_PORT: '0',
      },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the dashboard cannot listen on nohost\.invalid:0: the host name .*DASHBOARD_HOST/);
  }, 60_000);
});
