/**
 * Transcript helpers: run the real `brickpost` launcher in a child process
 * and capture its exit code, stdout and stderr.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The launcher, bin/brickpost.js, relative to this file. */
export const BIN = fileURLToPath(new URL('../bin/brickpost.js', import.meta.url));

/** One finished run. */
export interface Transcript {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `brickpost ...args` without BRICKPOST_HOME unless `env` sets it. */
export function brickpost(args: string[], env: Record<string, string> = {}): Transcript {
  const base = { ...process.env };
  delete base.BRICKPOST_HOME;
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Parses stdout as one JSON document, with the transcript in the message on failure. */
export function json(t: Transcript): any {
  try {
    return JSON.parse(t.stdout);
  } catch {
    throw new Error(`stdout is not one JSON document:\n${t.stdout}\nstderr:\n${t.stderr}`);
  }
}

/** Renders a transcript for assertion messages. */
export function show(t: Transcript): string {
  return `exit ${t.code}\n--- stdout\n${t.stdout}--- stderr\n${t.stderr}`;
}
