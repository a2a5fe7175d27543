/**
 * How a verify report is shown: aligned `field  value` lines with one line
 * per problem, and the failure (code, exit code, hint) of a report that is
 * not ok: that of its most serious problem (authenticity > unsafe > integrity).
 */
import type { VerifyReport } from '@brickpost/engine/api';
import { categoryOf, exitCodeOf, mostSerious } from './exit-codes.js';
import type { Failure } from './failure.js';
import { formatBytes, formatCount, plural, printable } from './format.js';

const HINTS: Record<string, string> = {
  authenticity: "do not use this drive's data until the publisher's signature checks out; if you know the key is genuine, trust it with 'brickpost trust add'",
  unsafe: 'the shipment asks for something brickpost refuses to do; do not ingest it',
  integrity: 'the drive is damaged, incomplete or altered; ask the sender for a new copy',
};

/** The human report. Values from the drive are shown with `printable`. */
export function reportLines(r: VerifyReport): string[] {
  const pub = r.publisher;
  const who = pub.name !== null ? `${pub.keyId} ${printable(pub.name)}` : pub.keyId;
  const lines = [
    `shipment   ${printable(r.shipmentId)}  dataset ${printable(r.dataset)} #${r.seq}${r.label !== '' ? `  label ${printable(r.label)}` : ''}`,
    `publisher  ${who}  ${pub.trusted ? 'trusted' : 'NOT TRUSTED'}`,
    `signature  ${r.signature}`,
    `fixity     ${r.fixity}  (${plural(r.filesChecked, 'file')}, ${formatBytes(r.bytesChecked)})`,
    `deep       ${r.deep}${r.deep !== 'skipped' ? `  (${formatCount(r.chunksChecked)} chunks${r.chunksHeld ? `, ${formatCount(r.chunksHeld)} held` : ''})` : ''}`,
  ];
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
        (r.repair.repairable ? "all repairable in place: run 'brickpost repair'" : `${plural(bad.length, 'file')} beyond this drive's recovery data (${bad.slice(0, 3).map((f) => printable(f.path)).join(', ')})`),
    );
  }
  for (const p of r.problems) {
    lines.push(`problem    ${p.code}  ${p.message}${p.path !== undefined ? `  (${printable(p.path)})` : ''}`);
  }
  lines.push(`result     ${r.ok ? 'OK' : 'FAILED'}`);
  return lines;
}

/** The failure a report stands for, or undefined when it is ok. */
export function reportFailure(r: VerifyReport, drive: string): Failure | undefined {
  if (r.ok) return undefined;
  const worst = mostSerious(r.problems.map((p) => p.code)) ?? 'MALFORMED';
  const count = r.problems.length > 0 ? plural(r.problems.length, 'problem') : 'no problem reported';
  return {
    type: 'error',
    code: worst,
    exitCode: exitCodeOf(worst),
    message: `verification of ${printable(drive)} failed: ${count}, most serious ${worst}`,
    hint: r.repair?.repairable ? `the drive's recovery data can repair it: brickpost repair ${printable(drive)}` : (HINTS[categoryOf(worst)] ?? HINTS.integrity!),
  };
}
