/**
 * The sweep's progress bar: redrawn in place on stderr when stderr is a terminal,
 * at most ~10 times a second; when it is not (a pipe, a CI log), a plain line every
 * PIPED_EVERY_MS and the final line, so a long sweep is seen to move without filling
 * the log. Wall time is read here, in the harness above the simulator, never in it.
 */
export const PIPED_EVERY_MS = 5000;

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export class Progress {
  private done = 0;
  private failing = 0;
  private readonly startMs: number;
  private lastDrawMs = 0;
  private lastLineMs: number;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: ProgressStream = process.stderr,
    tty?: boolean,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.tty = tty ?? out.isTTY === true;
    this.startMs = nowMs();
    this.lastLineMs = this.startMs;
  }

  /** Count finished seeds (`failing` of them with a violation). */
  add(done: number, failing: number): void {
    this.done += done;
    this.failing += failing;
    const now = this.nowMs();
    if (!this.tty) {
      if (now - this.lastLineMs < PIPED_EVERY_MS || this.done >= this.total) return;
      this.lastLineMs = now;
      this.out.write(`${this.label}: ${this.done}/${this.total} seeds, ${this.failing} with a violation, ${((now - this.startMs) / 1000).toFixed(0)} s\n`);
      return;
    }
    if (now - this.lastDrawMs < 100 && this.done < this.total) return;
    this.lastDrawMs = now;
    this.out.write(`\r${this.bar(now)}\x1b[K`);
  }

  elapsedMs(): number {
    return this.nowMs() - this.startMs;
  }

  /** The last line, printed either way. */
  finish(extra = ""): void {
    const s = (this.elapsedMs() / 1000).toFixed(1);
    const rate = this.elapsedMs() > 0 ? Math.round((this.done * 1000) / this.elapsedMs()) : this.done;
    const line = `${this.label}: ${this.done}/${this.total} seeds in ${s} s (${rate} seeds/s), ${this.failing} with a violation${extra}`;
    this.out.write(this.tty ? `\r${line}\x1b[K\n` : `${line}\n`);
  }

  private bar(nowMs: number): string {
    const width = 30;
    const frac = this.total === 0 ? 1 : this.done / this.total;
    const filled = Math.round(frac * width);
    const elapsedS = (nowMs - this.startMs) / 1000;
    const etaS = frac > 0 ? (elapsedS / frac) * (1 - frac) : 0;
    return (
      `${this.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${this.done}/${this.total} ` +
      `${(frac * 100).toFixed(0)}%  ${this.failing} failing  ${elapsedS.toFixed(1)} s  eta ${etaS.toFixed(0)} s`
    );
  }
}

/**
 * Progress of a command made of N steps (debate's claims, real mode's runs, explore's
 * runs): one line, redrawn in place on a terminal at most 5 times a second, a plain line
 * every PIPED_EVERY_MS when piped; `done` clears the terminal's line.
 */
export class StepProgress {
  private readonly tty: boolean;
  private readonly startMs: number;
  private lastMs: number;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly out: ProgressStream = process.stderr,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.tty = out.isTTY === true;
    this.startMs = nowMs();
    this.lastMs = this.startMs;
  }

  /** `text` says where the command is ("3/12 claims"); shown if it is time to. */
  step(text: string): void {
    const now = this.nowMs();
    if (now - this.lastMs < (this.tty ? 200 : PIPED_EVERY_MS)) return;
    this.lastMs = now;
    const line = `${this.label}: ${text}, ${((now - this.startMs) / 1000).toFixed(0)} s`;
    this.out.write(this.tty ? `\r${line}\x1b[K` : `${line}\n`);
    this.drawn = true;
  }

  done(): void {
    if (this.tty && this.drawn) this.out.write("\r\x1b[K");
  }
}
