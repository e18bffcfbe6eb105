import { describe, expect, it } from 'vitest';
import { devBannerLines } from '../../../../cli/local-stack/dev-banner.js';

const STACK = {
  databaseUrl: 'postgres://postgres:pw@127.0.0.1:54329/wa_lake',
  temporalAddress: '127.0.0.1:7233',
  uiUrl: 'http://127.0.0.1:8233',
  payloadKeyFile: '/data/payload-encryption-keys',
  outboxPath: '/data/outbox.sqlite',
  collectorStatusPath: '/data/collector-status.json',
  ingestUrl: 'http://127.0.0.1:8080',
  codec: { url: 'http://127.0.0.1:8234', tokenFile: '/data/codec-server-token' },
  dataDir: '/data',
};

describe('the banner of wa-lake dev (ADR 0017)', () => {
  it('names the codec endpoint and its token file, the outbox, the status file and the ingest URL', () => {
    const text = devBannerLines(STACK).join('\n');
    expect(text).toContain(
      '  Codec server    : http://127.0.0.1:8234 (token in /data/codec-server-token; every caller needs it)'
    );
    // ADR 0028: the Web UI needs the token too; the operator enters it in the UI's own setting, never on a command line.
    expect(text).toContain(
      "  Web UI decoding : in the Web UI's Codec Server setting, enter http://127.0.0.1:8234/<token> (kept by your browser)"
    );
    expect(text).toContain('  Outbox          : /data/outbox.sqlite');
    expect(text).toContain('  Status file     : /data/collector-status.json');
    for (const line of [
      "export OUTBOX_PATH='/data/outbox.sqlite'",
      "export COLLECTOR_STATUS_PATH='/data/collector-status.json'",
      "export SEND_API_URL='http://127.0.0.1:8080'",
      "export TEMPORAL_CODEC_ENDPOINT='http://127.0.0.1:8234'",
      `export TEMPORAL_CODEC_AUTH="Bearer $(cat '/data/codec-server-token')"`,
    ])
      expect(text).toContain(`    ${line}`);
    // The temporal CLI reads the codec endpoint and its token from the environment: no token on a command line.
    expect(text).toContain('    temporal workflow show --workflow-id <event_id>\n');
  });

  it('prints the lake’s connection without its password, which psql reads from PGPASSFILE (ADR 0028)', () => {
    const own = { ...STACK, postgresFiles: { passwordFile: '/data/postgres-password', pgpassFile: '/data/pgpass' } };
    const text = devBannerLines(own).join('\n');
    expect(text).not.toContain(':pw@');
    expect(text).toContain(
      '  Lake (psql)     : postgres://postgres@127.0.0.1:54329/wa_lake (password in /data/pgpass: PGPASSFILE)'
    );
    expect(text).toContain("    export PGPASSFILE='/data/pgpass'");
    expect(devBannerLines(STACK).join('\n')).toContain('  Lake (psql)     : postgres://***@127.0.0.1:54329/wa_lake');
  });

  it('stands apart from the log: a blank line and a rule before and after', () => {
    const lines = devBannerLines(STACK);
    expect(lines.slice(0, 2)).toEqual(['', '─'.repeat(100)]);
    expect(lines.slice(-2)).toEqual(['─'.repeat(100), '']);
  });

  it('has no codec lines when headless', () => {
    const text = devBannerLines({ ...STACK, uiUrl: null, codec: null }).join('\n');
    expect(text).toContain('Temporal Web UI : (headless)');
    expect(text).not.toContain('Codec server');
    expect(text).not.toContain('temporal workflow show');
  });

  it('names the command that keeps the stack, with the same export lines', () => {
    const lines = devBannerLines(STACK, 'wa-lake demo keeps its stack running (Ctrl-C stops everything)');
    expect(lines[2]).toBe('wa-lake demo keeps its stack running (Ctrl-C stops everything)');
    expect(lines).toContain("    export DATABASE_URL='postgres://postgres:pw@127.0.0.1:54329/wa_lake'");
  });

  it('names the temporal CLI the stack runs, which is seldom on PATH', () => {
    const lines = devBannerLines({ ...STACK, temporalCli: '/w/.tools/temporal/bin/temporal' });
    expect(lines).toContain('    /w/.tools/temporal/bin/temporal workflow show --workflow-id <event_id>');
  });
});
