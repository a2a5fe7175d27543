/**
 * Running the real `brickpost` command asynchronously, optionally
 * SIGKILLed after a delay (no cleanup, as if the power failed): the
 * harness's one way to start a command.
 */
import { spawn } from 'node:child_process';
import { CLI, COMMAND_TIMEOUT } from '../support.js';

/** Packs of 1 MiB, so a small dataset makes many packs (the engine reads this variable). */
export const ENV = { ...process.env, BRICKPOST_PACK_TARGET: String(1 << 20) };

/** How one run of the command ended. */
export interface Outcome {
  /** The exit code, or null when a signal ended the process. */
  code: number | null;
  /** True when our SIGKILL ended it (it was still running at the delay). */
  killed: boolean;
  /** Wall time from spawn to exit, in ms. */
  ms: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `brickpost --home HOME args…`; with `killAfter`, sends SIGKILL that
 * many ms after the spawn. A command still running after COMMAND_TIMEOUT is
 * killed and reported as hung.
 * @throws Error when the command hangs or cannot be started
 */
export function run(home: string, args: string[], killAfter?: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, '--home', home, ...args], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => void (stdout = (stdout + d).slice(-20_000)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (stderr = (stderr + d).slice(-20_000)));
    let killed = false;
    let hung = false;
    const killer = killAfter === undefined ? undefined : setTimeout(() => (killed = child.kill('SIGKILL')), killAfter);
    const watchdog = setTimeout(() => (hung = child.kill('SIGKILL')), COMMAND_TIMEOUT);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      clearTimeout(watchdog);
      const ms = performance.now() - t0;
      if (hung) reject(new Error(`brickpost ${args.join(' ')} hung (killed after ${COMMAND_TIMEOUT / 1000} s); stderr: ${stderr.slice(-2000)}`));
      // A kill sent just as the process exited on its own does not count.
      else resolve({ code, killed: killed && signal === 'SIGKILL', ms, stdout, stderr });
    });
  });
}

/** One line of an outcome for a report: exit code or kill, time, the end of stderr. */
export function describeOutcome(o: Outcome): string {
  const how = o.killed ? 'killed' : o.code === null ? 'died of a signal' : `exit ${o.code}`;
  return `${how} after ${Math.round(o.ms)} ms${o.stderr.trim() ? `; stderr: ${o.stderr.trim().slice(-1500)}` : ''}`;
}
