// Which folder may import which: the rules each folder's README states, as lint rules; and
// where the WhatsApp JID rules live (`jidRuleConfigs`). eslint.config.js spreads `importRuleConfigs` and
// `jidRuleConfigs` into the real configuration, and test/unit/lint/ lints deliberately wrong code against the
// same objects, so the tests prove the rules the repository runs, not a copy of them.
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** Absolute path of the repository root: zones are resolved from it whatever the working directory. */
export const repoRoot = fileURLToPath(new URL('.', import.meta.url));

/** `settings` for the import-x plugin: resolve imports as TypeScript does, so zones see real files. */
export const importResolverSettings = {
  'import-x/resolver-next': [
    createTypeScriptImportResolver({ project: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
};

const PROCESS_FOLDERS = ['./collector', './ingest-api', './activities', './worker', './ops'];

/**
 * Zones of `import-x/no-restricted-paths`: a file under `target` may not import a file under `from`
 * (but may import `except`, relative to each `from`). Paths are relative to {@link repoRoot}.
 */
export const restrictedPathZones = [
  {
    target: './common',
    from: [...PROCESS_FOLDERS, './lake', './codec-server', './cli', './dev-stack'],
    message: 'common/ is shared by the processes, so it imports none of them (common/README.md).',
  },
  {
    target: './common',
    from: './workflows',
    except: ['./contracts.ts'],
    message: 'common/ may import only the sandbox-safe workflows/contracts.ts (common/README.md).',
  },
  {
    target: './ingest-api',
    from: ['./collector', './activities', './worker', './ops', './cli', './dev-stack'],
    message: 'The ingest API imports no collector, workflow, activity or worker code (ingest-api/README.md).',
  },
  {
    target: './ingest-api',
    from: './workflows',
    except: ['./contracts.ts', './send-contracts.ts'],
    message:
      'The ingest API starts sendMessage by name: it may import only the sandbox-safe contracts (architecture.md §12, ingest-api/README.md).',
  },
  {
    target: './ingest-api',
    from: './lake',
    except: ['./index.ts'],
    message: "The ingest API reaches PostgreSQL only through the lake's door, lake/index.ts (lake/README.md).",
  },
  {
    target: './lake',
    from: [...PROCESS_FOLDERS, './cli', './dev-stack'],
    message: 'lake/ is the PostgreSQL code the processes share: it imports none of them (lake/README.md).',
  },
  {
    target: './lake',
    from: './workflows',
    except: ['./send-states.ts'],
    message:
      'lake/ may import from workflows/ only send-states.ts, plain values that load no Temporal SDK (lake/README.md).',
  },
  {
    target: './lake/projections',
    from: './lake',
    except: ['./projections'],
    message:
      'lake/projections/ is pure (facts in, facts out): the lake imports projections/, never the other way (lake/README.md).',
  },
  {
    target: './codec-server',
    from: [...PROCESS_FOLDERS, './lake', './cli', './dev-stack', './workflows'],
    message:
      'codec-server/ decrypts payloads with common/encryption-codec.ts only: it imports no process, lake or workflow code (codec-server/README.md).',
  },
  {
    target: './collector',
    from: ['./activities', './worker', './ingest-api', './lake', './ops', './cli', './dev-stack'],
    message: 'The collector imports no activity, worker, ingest or lake code (collector/README.md).',
  },
  {
    target: './collector',
    from: './workflows',
    except: ['./contracts.ts', './send-contracts.ts'],
    message:
      'The collector starts deliverEvent by name: it may import workflows/contracts.ts and send-contracts.ts only.',
  },
  {
    target: './collector/normalize',
    from: './collector',
    except: ['./normalize'],
    message: 'normalize/ is pure value normalization: it imports nothing from the collector above it.',
  },
  {
    target: ['./activities', './worker', './ops'],
    from: ['./cli', './dev-stack', './lake'],
    message:
      'Only the CLI wires processes and starts the local stack, and only the CLI and the ingest API open the lake (cli/README.md, lake/README.md).',
  },
  {
    target: './workflows',
    from: ['./collector', './ingest-api', './lake', './codec-server', './worker', './ops', './cli', './dev-stack'],
    message: 'Workflow code runs in the Temporal sandbox: it imports only sandbox-safe code (workflows/README.md).',
  },
  {
    target: './dev-stack',
    from: [...PROCESS_FOLDERS, './lake', './cli'],
    message: 'dev-stack/ starts servers for the CLI and tests; it imports no process (dev-stack/README.md).',
  },
  {
    target: './dev-stack',
    from: './workflows',
    except: ['./contracts.ts'],
    message: 'dev-stack/ may import only the sandbox-safe workflows/contracts.ts (dev-stack/README.md).',
  },
  {
    target: './cli',
    from: ['./collector', './ingest-api', './lake', './worker', './ops'],
    except: ['./index.ts'],
    message:
      "The CLI imports a process and the lake only through their public entry point, that folder's index.ts (cli/README.md).",
  },
  {
    target: './cli',
    from: ['./activities', './workflows'],
    except: ['./contracts.ts', './send-contracts.ts'],
    message: 'The CLI reaches activities and workflows only through the worker and workflows/contracts.ts.',
  },
];

/** Every Node built-in, in both spellings (`fs` and `node:fs`), as `node:module` lists them. */
export const nodeBuiltinNames = [
  ...new Set(builtinModules.flatMap((name) => [name.replace(/^node:/, ''), `node:${name.replace(/^node:/, '')}`])),
];

/** Options of `no-restricted-imports` for workflow code: what the Temporal sandbox cannot run. */
export const workflowRestrictedImports = {
  paths: nodeBuiltinNames.map((name) => ({
    name,
    message: 'Workflow code must be deterministic: no Node built-ins.',
  })),
  patterns: [
    {
      // The prefix-only built-ins (node:test, node:sea, node:sqlite) are not in builtinModules.
      group: ['node:*'],
      message: 'Workflow code must be deterministic: no Node built-ins.',
    },
    {
      group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker'],
      message: 'Not in the workflow sandbox.',
    },
    {
      group: ['pg', 'better-sqlite3', '@whiskeysockets/baileys', 'pino', 'pino-*'],
      message: 'I/O belongs in activities.',
    },
    {
      group: ['**/activities/**', '../activities/*'],
      allowTypeImports: true,
      message: 'Import activity types only.',
    },
    {
      group: ['**/common/**', '../common/*'],
      allowTypeImports: true,
      message: 'common/ values reach Node built-ins: import its types only.',
    },
  ],
};

/**
 * Flat-config objects that carry the import rules; they need the `import-x` plugin and its resolver
 * configured beside them (eslint.config.js does both).
 */
export const importRuleConfigs = [
  {
    files: ['**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: repoRoot, zones: restrictedPathZones }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', workflowRestrictedImports] },
  },
];

/** The JID servers whose suffix checks belong to common/whatsapp-jid.ts. */
const JID_SERVER_PATTERN = 'g\\.us|lid|s\\.whatsapp\\.net|c\\.us|newsletter|broadcast';
const JID_RULE_MESSAGE =
  'JID rules live in common/whatsapp-jid.ts: ask isJidGroup, isLidUser, isPnUser, jidNormalizedUser, … (ADR 0021).';

/** `no-restricted-syntax` entries that reject a JID rule written inline outside common/whatsapp-jid.ts. */
export const inlineJidRuleSelectors = [
  {
    // jid.endsWith('@g.us'), text.includes('@lid'), jid.split('@s.whatsapp.net')
    selector: `CallExpression[callee.property.name=/^(endsWith|startsWith|includes|indexOf|lastIndexOf|split)$/] > Literal[value=/@(${JID_SERVER_PATTERN})/]`,
    message: JID_RULE_MESSAGE,
  },
  {
    // decoded.server === 'lid'
    selector: `BinaryExpression > Literal[value=/^(${JID_SERVER_PATTERN})$/]`,
    message: JID_RULE_MESSAGE,
  },
  {
    // /^\d+@g\.us$/, /@(s\.whatsapp\.net|lid)/
    selector: 'Literal[regex.pattern=/whatsapp|[gc]\\\\.us|[@|(]lid/]',
    message: JID_RULE_MESSAGE,
  },
];

/** Flat-config objects that keep the JID rules in their one module (ADR 0021). */
export const jidRuleConfigs = [
  {
    files: ['**/*.ts'],
    ignores: ['common/whatsapp-jid.ts', 'test/**', 'bench/**', 'examples/**', 'scripts/**'],
    rules: { 'no-restricted-syntax': ['error', ...inlineJidRuleSelectors] },
  },
];
