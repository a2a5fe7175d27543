/**
 * Turning timed steps into the tables a reader compares.
 *
 * A step record is {tool, op, label, wall, mbps, cpu, treeRssMB, ...,
 * bytesOnDrive?, correct?, error?}. MB means 10^6 bytes throughout; MB/s is
 * the dataset's bytes divided by the step's wall seconds, whatever the step
 * reads or writes, so every row of one op is comparable.
 */

const find = (steps, tool, op) => steps.find((s) => s.tool === tool && s.op === op && !s.error && !s.na);

/**
 * brickpost's METRIC for OP divided by OTHER's, or null when either is
 * missing. For bytesOnDrive lower is better; for mbps higher is.
 */
export function ratio(steps, op, other, metric) {
  const a = find(steps, 'brickpost', op);
  const b = find(steps, other, op);
  if (!a || !b || a[metric] == null || !b[metric]) return null;
  return a[metric] / b[metric];
}

/** Largest whole-tree peak RSS (MB) over TOOL's successful steps, or null. */
export function rssPeak(steps, tool) {
  const mine = steps.filter((s) => s.tool === tool && s.wall != null && !s.error);
  return mine.length ? Math.max(...mine.map((s) => s.treeRssMB)) : null;
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const short = (msg) => {
  const first = String(msg).split('\n')[0];
  return first.length > 60 ? `${first.slice(0, 57)}...` : first;
};
const f1 = (x) => (x == null ? '' : x.toFixed(1));
const f2 = (x) => (x == null ? '' : x.toFixed(2));

/** The per-step table as text. */
export function stepsTable(steps, datasetBytes) {
  const rows = steps.map((s) => {
    if (s.na) return [s.tool, s.op, 'n/a', '', '', '', '', ''];
    if (s.skipped) return [s.tool, s.op, 'skipped', '', '', '', '', short(s.skipped)];
    const drive = s.bytesOnDrive == null ? '' : `${f1(s.bytesOnDrive / 1e6)} (${f2(s.bytesOnDrive / datasetBytes)})`;
    const note = s.error ? `FAILED: ${short(s.error)}` : s.correct === false ? 'WRONG OUTPUT' : s.correct ? 'output ok' : '';
    const step = s.label && s.label !== s.op ? `${s.op} [${s.label}]` : s.op;
    return [s.tool, step, f2(s.wall), f1(s.mbps), f1(s.cpu), f1(s.treeRssMB), drive, note];
  });
  return table(['tool', 'step', 'wall s', 'MB/s', 'CPU s', 'peak RSS MB', 'on drive MB (ratio)', ''], rows);
}

/** The brickpost-vs-others ratio table for a scenario's comparisons. */
export function ratioTable(steps, scenario, others) {
  const rows = scenario.comparisons.map((c) => [
    c.title,
    '',
    ...others.map((o) => {
      const r = ratio(steps, c.op, o, c.metric);
      return r == null ? '-' : `${r.toFixed(2)}x`;
    }),
  ]);
  return table(['brickpost / other', '', ...others], rows);
}

/**
 * Judges the scenario's targets: [{text, status, value, shown}]. CTX (the
 * run's context, with what the scenario prepared) is passed on to each judge.
 */
export function judgeTargets(steps, scenario, ctx = {}) {
  return scenario.targets.map((t) => ({ text: t.text, ...t.judge(steps, ctx) }));
}
