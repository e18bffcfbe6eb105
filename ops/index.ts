/** Operator actions over Temporal, wired by the CLI into `wa-lake dlq list|replay` and `wa-lake status`. */
export { countDeadLetters, listDeadLetters, type ListDeadLettersOptions } from './list-dead-letters.js';
export {
  replayDeadLetters,
  selectDeadLettersToReplay,
  type ReplayReport,
  type ReplaySelection,
} from './replay-dead-letters.js';
export { forgetInDeadLetters } from './forget-dead-letters.js';
