/** Step 2 of a pack (pack.ts): the shipment's place in its dataset's chain. */
import { BrickpostError, quote } from '@brickpost/manifest';
import type { PackOptions } from '../api/index.js';
import type { Context } from '../context.js';
import type { Identity } from '../keys/index.js';
import { loadAgainst, type Against } from './against.js';
import { openDataset, type Dataset } from './catalog-rows.js';
import { planChain, type ChainPlan } from './chain.js';
import { heldInTrees, type HeldSet } from './held.js';
import type { Inputs } from './inputs.js';
import { checkLayout, discard, findInterrupted, type Interrupted } from './resume.js';
import { finishSealing } from './sealing.js';
import { TreeLookup } from './tree.js';

/** What step 2 decided. */
export interface Placed {
  dataset: Dataset;
  against: Against | null;
  plan: ChainPlan;
  /** The interrupted shipment `--resume` continues. */
  resuming: Interrupted | null;
  held: HeldSet;
  lookup: TreeLookup;
}

/**
 * Step 2: places the shipment in its dataset's chain: finishes a shipment
 * left sealing, continues (--resume) or drops an interrupted one, and
 * plans the bases, or takes the file given with --against; then what is
 * held and the trees that serve as stat cache and bases of deltas.
 * @throws BrickpostError USAGE (nothing to resume, different options), and what loadAgainst and finishSealing throw
 */
export async function placeInChain(
  ctx: Context,
  opts: PackOptions,
  me: Identity,
  input: Inputs,
  warn: (code: string, message: string) => void,
): Promise<Placed> {
  const { drives, datasetName, recipientStrings } = input;
  const dataset = openDataset(ctx, datasetName, me.keyId);
  // Relative to the recipients' trees (bases), or to what a signature file lists (against), or to nothing.
  const against = opts.against !== undefined ? await loadAgainst(ctx, opts.against, dataset.id) : null;
  await finishSealing(ctx.catalog, dataset.id, drives.roots, me.recipient, warn);
  const interrupted = findInterrupted(ctx.catalog, dataset.id);
  let plan: ChainPlan;
  try {
    if (opts.resume) {
      if (!interrupted)
        throw new BrickpostError('USAGE', `dataset ${quote(datasetName)} has no interrupted shipment to resume`, {
          hint: 'drop --resume to pack a new shipment',
        });
      checkLayout(interrupted, drives.roots.length, drives.parity);
      if (interrupted.against !== (against?.sha256 ?? null))
        throw new BrickpostError(
          'USAGE',
          `shipment ${quote(interrupted.id)} was packed ${interrupted.against ? 'against a signature file' : 'without --against'}; give the same options to resume it`,
        );
      if (opts.recovery === undefined) drives.recovery = interrupted.layout.recovery;
      plan = interrupted.plan;
    } else {
      if (interrupted) await discard(ctx, interrupted.id, drives.roots, warn);
      plan = planChain(
        ctx.catalog,
        dataset.id,
        recipientStrings.filter((r) => r !== me.recipient),
        opts.full === true || against !== null,
      );
    }
  } catch (e) {
    against?.held.close();
    throw e;
  }
  if (against) plan.notes = [`built against ${quote(opts.against!)}: held chunks are those it lists`];
  const baseIds = plan.bases.map((b) => b.shipmentId);
  const held: HeldSet = against?.held ?? heldInTrees(ctx.catalog, baseIds);
  const reference = opts.rehash || baseIds.length === 0 ? null : TreeLookup.referenceTree(ctx.catalog, dataset.id);
  return { dataset, against, plan, resuming: opts.resume ? interrupted : null, held, lookup: new TreeLookup(ctx.catalog, reference, baseIds) };
}
