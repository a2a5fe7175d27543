import { custodyActor, type CustodyActor } from '@brickpost/manifest';
import type { Identity } from '../keys/index.js';

/** Longest actor name written (readers refuse more than 1024 code units). */
const MAX_NAME = 256;

/** A name as an actor may carry it: lone surrogates replaced, at most MAX_NAME code units. */
export function wellFormed(name: string): string {
  return name.toWellFormed().slice(0, MAX_NAME).toWellFormed();
}

/** This home's identity as the actor of an event. */
export function actorOf(id: Identity): CustodyActor {
  return custodyActor(wellFormed(id.name), id.signingKey);
}
