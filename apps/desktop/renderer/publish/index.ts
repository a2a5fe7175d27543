/**
 * The publisher wizard: source folder → size and estimate → target drives →
 * recipients (age keys of the subscribers) → options → packing → done
 * (report and drive labels). A "drive" is any folder the shipment is
 * written under (DRIVE/brickpost/ID/); a mounted removable drive or a folder.
 */
import { wizard } from '../ui/wizard.js';
import { doneStep } from './done.js';
import { drivesStep } from './drives.js';
import { optionsStep } from './options.js';
import { recipientsStep } from './recipients.js';
import { runStep } from './run.js';
import { estimateStep, sourceStep } from './source.js';
import { newPublishState } from './state.js';

/** A fresh publisher wizard. */
export function publishView(): HTMLElement {
  return wizard(
    'publish',
    'Send a dataset on drives',
    [sourceStep, estimateStep, drivesStep, recipientsStep, optionsStep, runStep, doneStep],
    newPublishState(),
  );
}
