import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../../workflows/contracts.js';
import { projectPath, readProjectFile } from '../../helpers/compose-file.js';

// docs/runbook.md and the pages around it (ADR 0002).
const runbook = readProjectFile('docs/runbook.md');
const DOC_PAGES = ['docs/README.md', 'docs/architecture.md', 'docs/configuration.md', 'docs/runbook.md'];
const REQUIRED_ADRS = [
  '0001-deterministic-event-id-and-synchronous-ingest.md',
  '0002-delivery-on-temporal.md',
  '0003-event-key-rules.md',
  '0004-lid-first-identity.md',
  '0005-sqlite-outbox.md',
];
const ADRS = readdirSync(projectPath('docs/adr')).filter((name) => name.endsWith('.md'));
const cliPath = process.env['TEMPORAL_CLI_PATH'] ?? projectPath('.tools/temporal/bin/temporal');

function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('docs/runbook.md', () => {
  it('gives the exact single-event reset command under its marker', () => {
    expect(runbook).toContain(
      '<!-- runbook:reset-one -->\n```bash\ntemporal workflow reset --workflow-id <event_id> --type FirstWorkflowTask --reason "ingest fixed"\n```\n'
    );
  });

  it('gives the Web UI queries operators need, using every registered search attribute', () => {
    for (const query of [
      "WaDeliveryState = 'auth_blocked'",
      "WaDeliveryState = 'dead_lettered'",
      "ExecutionStatus = 'Running' AND WaDeliveryState = 'pending'",
      "ExecutionStatus = 'Completed' AND WorkflowType = 'deliverEvent'",
      "WaChatJid = '120363000000000001@g.us'",
    ]) {
      expect(runbook).toContain(`\`${query}\``);
    }
    for (const { name } of SEARCH_ATTRIBUTE_DEFINITIONS) expect(runbook).toContain(name);
  });

  it('covers every operator task', () => {
    for (const heading of [
      'Find stuck events',
      'Read why one is stuck',
      'Reset one',
      'Reset many',
      'Dead letters',
      'Rotate the webhook secret',
      'Re-link the WhatsApp account',
      'Read `wa-lake status`',
      'Alerts',
    ]) {
      expect(runbook).toMatch(new RegExp(`^## \\d+\\. ${heading.replace(/[`.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
    }
    expect(runbook).toContain('wa-lake dlq list');
    expect(runbook).toContain('wa-lake dlq replay --all');
    expect(runbook).toContain('--pair-phone');
  });

  it.skipIf(!existsSync(cliPath))('uses only flags the installed temporal CLI has for batch resets', () => {
    const help = spawnSync(cliPath, ['workflow', 'reset', '--help'], { encoding: 'utf8' }).stdout;
    for (const flag of ['--workflow-id', '--type', '--reason', '--query', '--yes']) expect(help).toContain(flag);
    expect(runbook).toMatch(
      /temporal workflow reset --query "[^"]+" \\\n\s+--type FirstWorkflowTask --reason "[^"]+" --yes/
    );
  });

  it('embeds screenshots that exist', () => {
    const images = [...runbook.matchAll(/!\[[^\]]*\]\((images\/[^)]+\.png)\)/g)].map((m) => m[1] ?? '');
    expect(images.length).toBeGreaterThanOrEqual(4);
    for (const image of images) expect(existsSync(projectPath(`docs/${image}`)), image).toBe(true);
  });
});

describe('docs', () => {
  it('has the ADRs the runbook needs', () => {
    expect(ADRS).toEqual(expect.arrayContaining(REQUIRED_ADRS));
    for (const adr of ADRS)
      expect(readProjectFile(`docs/adr/${adr}`)).toMatch(/^# ADR \d{4}: .+\n\n- Status: accepted/);
  });

  it('has an architecture page with a diagram', () => {
    expect(readProjectFile('docs/architecture.md')).toContain('```mermaid\nflowchart');
  });

  it('has no broken relative link', () => {
    for (const page of [...DOC_PAGES, ...ADRS.map((adr) => `docs/adr/${adr}`)]) {
      for (const target of relativeLinks(readProjectFile(page))) {
        expect(existsSync(join(dirname(projectPath(page)), target)), `${page} → ${target}`).toBe(true);
      }
    }
  });
});
