import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { jidRuleConfigs, repoRoot } from '../../../eslint-import-rules.js';

// Proof that a JID rule written inline outside common/whatsapp-jid.ts fails lint (ADR 0021). The
// rule objects are the ones eslint.config.js spreads in.
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({
    cwd: repoRoot,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...jidRuleConfigs],
  });
});

async function ruleIdsFor(relativePath: string, code: string): Promise<Array<string | null>> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, relativePath) });
  return [...new Set((result?.messages ?? []).map((message) => message.ruleId))];
}

describe('JID rules have one home (common/whatsapp-jid.ts)', () => {
  it.each([
    ['a group suffix check', "export const isGroup = (jid: string) => jid.endsWith('@g.us');"],
    ['a LID suffix check', "export const isLid = (jid: string) => jid.endsWith('@lid');"],
    ['a phone suffix check', "export const isPhone = (jid: string) => jid.endsWith('@s.whatsapp.net');"],
    ['a newsletter check by includes', "export const isChannel = (jid: string) => jid.includes('@newsletter');"],
    ['a server comparison', "export const isLid = (server: string) => server === 'lid';"],
    ['a group regex', 'export const GROUP = /^\\d+@g\\.us$/;'],
    ['a person regex', 'export const PERSON = /^(\\d+)@(s\\.whatsapp\\.net|lid)$/;'],
    ['a LID regex', 'export const LID = /^\\d+@lid$/;'],
  ])('rejects %s in product code', async (_label, code) => {
    expect(await ruleIdsFor('lake/probe.ts', code)).toEqual(['no-restricted-syntax']);
    expect(await ruleIdsFor('collector/probe.ts', code)).toEqual(['no-restricted-syntax']);
  });

  it.each([
    ['asking the module', "import { isJidGroup } from './whatsapp-jid.js';\nexport const g = isJidGroup('1@g.us');"],
    ['a JID as data', "export const GROUP = '120363000000000201@g.us';"],
    ['an unrelated suffix', "export const isJson = (name: string) => name.endsWith('.json');"],
    ['an unrelated regex', 'export const DIGITS = /^\\d{8,15}$/;'],
  ])('allows %s', async (_label, code) => {
    expect(await ruleIdsFor('common/probe.ts', code)).toEqual([]);
  });

  it('lets the module itself, tests and fixtures state the rules', async () => {
    const code = "export const isGroup = (jid: string) => jid.endsWith('@g.us');";
    expect(await ruleIdsFor('common/whatsapp-jid.ts', code)).toEqual([]);
    expect(await ruleIdsFor('test/unit/probe.test.ts', code)).toEqual([]);
  });
});
