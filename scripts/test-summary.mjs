// Vitest reporter: after the run, the counts CI reads, as Node's test runner
// prints them (`# tests N`, `# pass N`, `# fail N`, `# skipped N`...). A test
// file that fails to load, and an error outside any test, count as a failure.
export default class TestSummary {
  onInit() {
    this.started = Date.now();
  }

  onTestRunEnd(modules, unhandledErrors) {
    const n = { tests: 0, suites: 0, pass: 0, fail: 0, skipped: 0, todo: 0 };
    for (const m of modules) {
      n.suites += [...m.children.allSuites()].length;
      let failed = 0;
      for (const t of m.children.allTests()) {
        n.tests++;
        const state = t.result().state;
        if (t.options.mode === 'todo') n.todo++;
        else if (state === 'passed') n.pass++;
        else if (state === 'failed') {
          n.fail++;
          failed++;
        } else n.skipped++;
      }
      // A file that did not load, or a failed hook whose tests did not run.
      if (m.state() === 'failed' && failed === 0) {
        n.tests++;
        n.fail++;
      }
    }
    n.fail += unhandledErrors.length;
    const lines = [`${n.pass} passed, ${n.fail} failed, ${n.skipped} skipped`];
    for (const [k, v] of Object.entries(n)) lines.push(`# ${k} ${v}`);
    lines.push(`# duration_ms ${Date.now() - this.started}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
