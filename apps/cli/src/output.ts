/**
 * Output: the two channels of the command (STYLE §8). stdout carries results
 * only (text lines, one JSON document, or NDJSON lines); stderr carries
 * `brickpost: …` diagnostics and the rewritable status line of a TTY.
 */
import type { Writable } from 'node:stream';
import type { EngineEvent, ErrorEvent, ListEntry } from '@brickpost/engine/api';

/** A writable stream that may be a terminal. */
export type Stream = Writable & { isTTY?: boolean; columns?: number };

/** How the output behaves. */
export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  stdout?: Stream;
  stderr?: Stream;
  /** Called once when stdout's reader goes away (EPIPE). */
  onClosed?: () => void;
}

/** Results to stdout, diagnostics to stderr, with backpressure and EPIPE handled. */
export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly stdout: Stream;
  readonly stderr: Stream;
  private statusShown = false;
  private stdoutClosed = false;

  constructor(opts: OutputOptions) {
    this.json = opts.json;
    this.quiet = opts.quiet;
    this.stdout = opts.stdout ?? process.stdout;
    this.stderr = opts.stderr ?? process.stderr;
    this.stdout.on('error', () => {
      // A reader that stops early (`brickpost ls | head`, EPIPE) is not an
      // error of ours; any stdout failure ends the results the same way.
      if (!this.stdoutClosed) {
        this.stdoutClosed = true;
        opts.onClosed?.();
      }
    });
  }

  /** True once stdout's reader has gone away; long writers should stop. */
  get closed(): boolean {
    return this.stdoutClosed;
  }

  /** True when a rewritable status line may be drawn on stderr. */
  get statusEnabled(): boolean {
    return this.stderr.isTTY === true && !this.quiet && !this.json;
  }

  /** Writes one result line to stdout; resolves when it may be written again. */
  line(text: string): Promise<void> {
    return this.write(text + '\n');
  }

  /** Writes one JSON document to stdout (quick commands in --json mode). */
  document(value: unknown): Promise<void> {
    return this.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** Writes one event of a long job as an NDJSON line to stdout (--json). */
  event(ev: EngineEvent): Promise<void> {
    return this.write(JSON.stringify(ev) + '\n');
  }

  /** Writes one entry of `ls --json` as an NDJSON line to stdout. */
  entry(e: ListEntry): Promise<void> {
    return this.write(JSON.stringify(e) + '\n');
  }

  /** An informational `brickpost: …` line on stderr, unless --quiet. */
  info(message: string): void {
    if (!this.quiet) this.diag(`brickpost: ${message}`);
  }

  /** A `brickpost: warning: …` line on stderr (shown even with --quiet). */
  warn(message: string, path?: string): void {
    this.diag(`brickpost: warning: ${message}${path !== undefined && !message.includes(path) ? ` (${path})` : ''}`);
  }

  /** A `brickpost: hint: …` line on stderr. */
  hint(message: string): void {
    this.diag(`brickpost: hint: ${message}`);
  }

  /** `brickpost: error: …` and its hint on stderr; in --json mode also the error event on stdout. */
  async failure(f: ErrorEvent): Promise<void> {
    this.diag(`brickpost: error: ${f.message}`);
    if (f.hint !== undefined) this.hint(f.hint);
    if (this.json) await this.event(f);
  }

  /** Draws (or redraws) the status line on stderr; no-op unless statusEnabled. */
  status(text: string): void {
    if (!this.statusEnabled) return;
    const width = Math.max(20, (this.stderr.columns || 80) - 1);
    const clipped = text.length > width ? text.slice(0, width - 1) + '…' : text;
    this.stderr.write(`\r${clipped}\x1b[K`);
    this.statusShown = true;
  }

  /** Erases the status line if one is shown. */
  clearStatus(): void {
    if (this.statusShown) {
      this.stderr.write('\r\x1b[K');
      this.statusShown = false;
    }
  }

  /** Resolves once everything written to stdout has been handed to the OS. */
  flush(): Promise<void> {
    if (this.stdoutClosed) return Promise.resolve();
    return new Promise((resolve) => {
      this.stdout.write('', () => resolve());
    });
  }

  private diag(line: string): void {
    this.clearStatus();
    this.stderr.write(line + '\n');
  }

  /** Writes raw bytes to stdout (`cat`); resolves when it may be written again. */
  bytes(b: Buffer): Promise<void> {
    return this.write(b);
  }

  private write(s: string | Buffer): Promise<void> {
    if (this.stdoutClosed) return Promise.resolve();
    if (this.stdout.write(s)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.stdout.off('drain', done);
        this.stdout.off('close', done);
        this.stdout.off('error', done);
        resolve();
      };
      this.stdout.on('drain', done);
      this.stdout.on('close', done);
      this.stdout.on('error', done);
    });
  }
}
