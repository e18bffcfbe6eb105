'use strict';
// The failure converter of every wa-lake client and worker when payload encryption is on (ADR 0022):
// failure messages and stack traces travel as an encoded payload (`encodeCommonAttributes`), so the
// payload codec encrypts them like any other payload instead of leaving them in clear in the history.
// CommonJS on purpose: the SDK `require`s `failureConverterPath` outside the sandbox (tsx, vitest, built
// JavaScript alike) and the workflow bundler aliases it inside; plain JavaScript works for all of them.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
