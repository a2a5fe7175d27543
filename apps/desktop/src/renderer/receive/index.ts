/**
 * The subscriber wizard: choose a drive → keyless check with a verdict
 * (intact, damaged, untrusted, not-brickpost; see verdict.ts) and an optional
 * deep check → destination (does the shipment apply there, as an incremental
 * update?) → ingest → receipt and report. The keyless check needs no
 * decryption key; the deep check and ingest need this home's identity.
 */
import { wizard } from '../ui/wizard.js';
import { checkStep } from './check.js';
import { destStep } from './dest.js';
import { receivedStep } from './done.js';
import { driveStep } from './drive.js';
import { ingestStep } from './ingest.js';
import { newReceiveState } from './state.js';

/** A fresh subscriber wizard. */
export function receiveView(): HTMLElement {
  return wizard('receive', 'Receive a drive', [driveStep, checkStep, destStep, ingestStep, receivedStep], newReceiveState());
}
