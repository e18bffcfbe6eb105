/**
 * Errors of the workflows folder. Workflow code fails deliberately only with `ApplicationFailure` whose
 * `type` is a `FailureType` string from `./contracts.ts` (house style §4): our own Error classes would
 * not survive the sandbox boundary for `instanceof`, and a plain Error only fails the workflow task.
 * This file therefore defines no classes; it documents the rule where readers look for it.
 */
export { FailureType, type FailureTypeName } from './contracts.js';
