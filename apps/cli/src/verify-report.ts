/**
 * How a verify report is shown: aligned `field  value` lines with one line
 * per problem, and the failure (code, exit code, hint) of a report that is
 * not ok: that of its most serious problem (authenticity, then unsafe, then integrity).
 */
import type { VerifyReport } from '@brickpost/engine/api';
import { describeCreated } from '@brickpost/engine/api';
import { categoryOf, exitCodeOf, mostSerious } from './exit-codes.js';
import type { Failure } from './failure.js';
import { commandLine, formatBytes, formatCount, plural, printable, shellArg } from './format.js';

const HINTS: Record<string, string> = {
  authenticity: "do not use this drive's data until the publisher's signature checks out; if you know the key is genuine, trust it with 'brickpost trust add'",
  unsafe: 'the shipment asks for something brickpost refuses to do; do not ingest it',
  integrity: 'the drive is damaged, incomplete or altered; ask the sender for a new copy',
};

/** How the signature line reads: an untrusted signer's valid signature is said to be valid, by whom, and how to trust the key. */
function signatureText(r: VerifyReport): string {
  const pub = r.publisher;
  if (r.signature !== 'valid' || pub.trusted) return r.signature;
  return `valid, by an untrusted key ${pub.keyId}${pub.publicKey ? ` (if it is your publisher's, trust it with: brickpost trust add ${pub.publicKey})` : ''}`;
}

/** The custody line: where this verify's `verified` event went (none for a shipment without a custody log). */
const CUSTODY: Record<VerifyReport['custody'], ((home?: string) => string) | undefined> = {
  drive: () => "'verified' event added to the drive's custody log and this home's catalog",
  catalog: () =>
    "'verified' event recorded in this home's catalog only: the drive's log could not be written or differs from this home's record (a warning above says which)",
  none: undefined,
  'no-identity': (home) =>
    `not recorded: this home has no identity to sign events (brickpost${home !== undefined ? ` --home ${shellArg(home)}` : ''} keygen creates one)`,
};

/** The human report. Values from the drive are shown with `printable`. */
export function reportLines(r: VerifyReport, home?: string): string[] {
  const pub = r.publisher;
  const who = pub.name !== null ? `${pub.keyId} ${printable(pub.name)}` : pub.keyId;
  const dataset = r.datasetFiles !== undefined ? `; the shipment carries ${plural(r.datasetFiles, 'file')}, ${formatBytes(r.datasetBytes ?? 0)}` : '';
  const lines = [
    `shipment   ${printable(r.shipmentId)}  dataset ${printable(r.dataset)} #${r.seq}${r.label !== '' ? `  label ${printable(r.label)}` : ''}${r.created !== undefined ? `  packed ${printable(describeCreated(r.created).text)}` : ''}`,
    `publisher  ${who}  ${pub.trusted ? 'trusted' : 'NOT TRUSTED'}`,
    `signature  ${signatureText(r)}`,
    `fixity     ${r.fixity}  (${plural(r.filesChecked, 'drive file')}, ${formatBytes(r.bytesChecked)}${dataset})`,
    `deep       ${r.deep}${r.deep !== 'skipped' ? `  (${plural(r.chunksChecked, 'chunk')} checked${r.refsCovered !== undefined ? `, covering ${plural(r.refsCovered, 'ref')}` : ''}${r.chunksHeld ? `, ${formatCount(r.chunksHeld)} held` : ''})` : ''}`,
  ];
  const custody = CUSTODY[r.custody];
  if (custody) lines.push(`custody    ${custody(home)}`);
  if (r.set) {
    const st = r.set;
    lines.push(
      `set        drive ${st.drive} of ${st.drives} (${st.data} data, ${st.parity} parity); drives here: ${st.present.join(', ')}; ` +
        (st.recoverable ? 'enough to ingest' : `${st.needed} more of drives ${st.missing.join(', ')} needed`),
    );
  }
  if (r.repair) {
    const bad = r.repair.files.filter((f) => !f.repairable);
    lines.push(
      `repair     ${formatCount(r.repair.damagedBlocks)} damaged blocks in ${plural(r.repair.files.length, 'file')}: ` +
        (r.repair.repairable
          ? "all repairable in place: run 'brickpost repair'"
          : `${plural(bad.length, 'file')} beyond this drive's recovery data (${bad
              .slice(0, 3)
              .map((f) => printable(f.path))
              .join(', ')})`),
    );
  }
  for (const p of r.problems) {
    lines.push(`problem    ${p.code}  ${p.message}${p.path !== undefined ? `  (${printable(p.path)})` : ''}`);
  }
  lines.push(`result     ${r.ok ? 'OK' : 'FAILED'}`);
  return lines;
}

/**
 * The failure a report stands for, or undefined when it is ok. `shipment`
 * is named in the hint's command (the drive holds several, or one was named).
 */
export function reportFailure(r: VerifyReport, drive: string, shipment?: string): Failure | undefined {
  if (r.ok) return undefined;
  const worst = mostSerious(r.problems.map((p) => p.code)) ?? 'MALFORMED';
  const count = r.problems.length > 0 ? plural(r.problems.length, 'problem') : 'no problem reported';
  return {
    type: 'error',
    code: worst,
    exitCode: exitCodeOf(worst),
    message: `verification of ${printable(drive)} failed: ${count}, most serious ${worst}`,
    hint: r.repair?.repairable
      ? `the drive's recovery data can repair it: ${commandLine(['repair', drive, ...(shipment !== undefined ? ['--shipment', shipment] : [])])}`
      : worst === 'UNTRUSTED_PUBLISHER' && r.signature === 'valid' && r.publisher.publicKey
        ? `if ${r.publisher.keyId} is your publisher's key (compare it with the key id they gave you), trust it: brickpost trust add ${r.publisher.publicKey}`
        : (refusalHint(r, worst) ?? HINTS[categoryOf(worst)] ?? HINTS.integrity!),
  };
}

/**
 * The engine's own hint for the most serious problem when it refuses what
 * the publisher signed (a manifest naming a frame past its pack, a limit
 * passed): the drive is not damaged, so the generic advice would mislead.
 */
function refusalHint(r: VerifyReport, worst: string): string | undefined {
  if (worst !== 'MALFORMED' && worst !== 'LIMIT_EXCEEDED' && categoryOf(worst) !== 'unsafe') return undefined;
  return r.problems.find((p) => p.code === worst && p.hint !== undefined)?.hint;
}
