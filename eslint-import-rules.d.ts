// Types of eslint-import-rules.js, for the tests in test/unit/lint/.
import type { Linter } from 'eslint';

/** Absolute path of the repository root (ends with a path separator). */
export declare const repoRoot: string;
/** `settings` for the import-x plugin (the TypeScript resolver on tsconfig.json). */
export declare const importResolverSettings: Record<string, unknown>;
/** Zones of `import-x/no-restricted-paths`, relative to {@link repoRoot}. */
export declare const restrictedPathZones: ReadonlyArray<{
  target: string | string[];
  from: string | string[];
  except?: string[];
  message: string;
}>;
/** Every Node built-in, as `fs` and as `node:fs`. */
export declare const nodeBuiltinNames: readonly string[];
/** Options of `no-restricted-imports` for workflow code. */
export declare const workflowRestrictedImports: Record<string, unknown>;
/** Flat-config objects carrying the import rules (need the import-x plugin and resolver beside them). */
export declare const importRuleConfigs: Linter.Config[];
/** `no-restricted-syntax` entries that reject an inline JID rule. */
export declare const inlineJidRuleSelectors: ReadonlyArray<{ selector: string; message: string }>;
/** Flat-config objects that keep the JID rules in common/whatsapp-jid.ts. */
export declare const jidRuleConfigs: Linter.Config[];
