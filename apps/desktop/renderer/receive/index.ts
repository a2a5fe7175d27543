/**
 * The subscriber wizard: choose a drive → keyless check with a verdict
 * (intact, damaged, untrusted, not-brickpost; see verdict.ts) and an optional
 * deep check; then, for an intact drive, either destination (does the
 * shipment apply there, as an incremental update?) → ingest → receipt and
 * report, or browse the shipment and tick entries → the folder to put them
 * in → extract → what was written. The keyless check needs no decryption
 * key; the deep check, browsing, extract and ingest need this home's identity.
 */
import { wizard, type Step } from '../ui/wizard.js';
import { browseStep } from './browse.js';
import { checkStep } from './check.js';
import { destStep } from './dest.js';
import { receivedStep } from './done.js';
import { driveStep } from './drive.js';
import { ingestStep } from './ingest.js';
import { newReceiveState, type ReceiveState } from './state.js';
import { extractStep, takeToStep } from './take.js';
import { takenStep } from './taken.js';

const INGEST: Step<ReceiveState>[] = [driveStep, checkStep, destStep, ingestStep, receivedStep];
const TAKE: Step<ReceiveState>[] = [driveStep, checkStep, browseStep, takeToStep, extractStep, takenStep];

/** A fresh subscriber wizard. */
export function receiveView(): HTMLElement {
  return wizard('receive', 'Receive a drive', (s) => (s.mode === 'take' ? TAKE : INGEST), newReceiveState());
}
