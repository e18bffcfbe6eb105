#!/usr/bin/env node
// Step of `npm run build` after tsc: bundles the compiled workflows once (dist/workflows/bundle*.js), as Temporal's
// production sample does, so `wa-lake worker` and `wa-lake dev` load them instead of running webpack at every
// start. Two bundles: with and without the encoding failure converter (a worker with PAYLOAD_ENCRYPTION_KEYS
// uses the first, architecture.md §14). The manifest, written last, names the SDK the bundles hold; the worker
// loads them only while that SDK is installed and no compiled workflow is newer (worker/prebuilt-workflow-bundle.ts).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

const dist = new URL('../dist/', import.meta.url);
const { resolveWorkflowsPath } = await import(new URL('worker/workflows-path.js', dist).href);
const { resolveFailureConverterPath } = await import(new URL('common/temporal-data-converter.js', dist).href);
const { PREBUILT_WORKFLOW_BUNDLE_FILES, installedWorkflowSdkVersion } = await import(
  new URL('worker/prebuilt-workflow-bundle.js', dist).href
);

const workflowsPath = resolveWorkflowsPath();
const dir = dirname(workflowsPath);
// webpack's report is build detail: only its warnings and errors are shown.
const quiet = () => undefined;
const say = (level) => (message, meta) =>
  process.stderr.write(`write-workflow-bundle ${level}: ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}\n`);
const logger = { trace: quiet, debug: quiet, info: quiet, log: quiet, warn: say('warn'), error: say('error') };

const variants = [
  [PREBUILT_WORKFLOW_BUNDLE_FILES.plain, undefined],
  [PREBUILT_WORKFLOW_BUNDLE_FILES.encodedFailures, resolveFailureConverterPath()],
];
for (const [file, failureConverterPath] of variants) {
  const { code } = await bundleWorkflowCode({ workflowsPath, failureConverterPath, logger });
  writeFileSync(join(dir, file), code);
}
writeFileSync(
  join(dir, PREBUILT_WORKFLOW_BUNDLE_FILES.manifest),
  `${JSON.stringify({ sdkVersion: installedWorkflowSdkVersion() })}\n`
);
process.exit(0);
