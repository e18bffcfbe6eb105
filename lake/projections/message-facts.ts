import type { ProjectionEvent } from './extract-projection-facts.js';
import { extractMessageIdentities } from './message-identities.js';
import type { ParticipantRef } from './participant-ref.js';

/**
 * What the batch path projects from an event that has no group projection work (most messages,
 * ADR 0006). Each field is one independent step of `lake/events/apply-message-projections.ts`; a new per-message
 * read model adds its own field and step beside `identities`.
 */
export interface MessageFacts {
  /** People the event names, with their LID↔phone pairs. */
  identities: ParticipantRef[];
}

/** Reads the {@link MessageFacts} of one event (pure). */
export function extractMessageFacts(event: ProjectionEvent): MessageFacts {
  return { identities: extractMessageIdentities(event.payload) };
}

/** True when the batch path has something to project for these facts (else the raw insert alone). */
export function hasMessageWork(facts: MessageFacts): boolean {
  return facts.identities.length > 0;
}
