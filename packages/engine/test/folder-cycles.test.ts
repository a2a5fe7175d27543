// The engine's folders are layers in the order data flows (scan, chunk,
// pack, drive, verify, ingest, …): no folder imports another that imports
// it back, directly or through others, as Go refuses package cycles. Type
// imports count: they tie the folders together as much as values do. The
// files at the top of src (the entry, the Engine) and the api contract
// (api/: types every folder may name, and an index that re-exports the
// pure words of the front ends) sit above every folder and are not part of
// the graph; the contract's own files import nothing but each other.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'vitest';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** The folder of a file under src, or null for a file at its top or of the api contract. */
function folderOf(file: string): string | null {
  const parts = file.split(sep);
  return parts.length > 1 && parts[0] !== 'api' ? parts[0]! : null;
}

/** Folder → folder it imports → the first import that makes the edge. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => /\.(ts|cts|mts)$/.test(f) && !f.endsWith('.d.ts'));
  for (const file of files) {
    const from = folderOf(file);
    if (from === null) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    const { importedFiles } = ts.preProcessFile(readFileSync(join(SRC, file), 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = relative(SRC, resolve(SRC, dirname(file), fileName));
      const to = folderOf(target);
      if (to === null || to === from || target.startsWith('..')) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, `${file} imports ${fileName}`);
    }
  }
  return graph;
}

/** The strongly connected components of more than one folder (Tarjan). */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the folders of the engine import each other without a cycle', () => {
  const graph = folderGraph();
  const edges = [...graph.values()].reduce((n, e) => n + e.size, 0);
  assert.ok(graph.size >= 15 && edges >= 40, `the import graph is read (${graph.size} folders, ${edges} edges under ${SRC})`);
  const found = cycles(graph).map((component) => {
    const inside = new Set(component);
    const how = component.flatMap((a) => [...graph.get(a)!].filter(([b]) => inside.has(b)).map(([b, why]) => `  ${a} -> ${b}: ${why}`));
    return `${component.join(', ')}:\n${how.join('\n')}`;
  });
  assert.ok(found.length === 0, `folders in a cycle:\n${found.join('\n')}`);
});

test("the api contract's files import nothing of the engine but each other", () => {
  const dir = join(SRC, 'api');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
  assert.ok(files.length >= 10, `the contract's files are read (${files.length} under ${dir})`);
  const outside = files.flatMap((f) =>
    ts
      .preProcessFile(readFileSync(join(dir, f), 'utf8'), true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((n) => n.startsWith('.') && !/^\.\/[\w-]+\.js$/.test(n))
      .map((n) => `api/${f} imports ${n}`),
  );
  assert.deepEqual(outside, []);
});
