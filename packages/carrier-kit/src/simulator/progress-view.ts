import type { CourierProgress } from './courier-simulator.js';

/** Where progress is written: `process.stdout` or anything with `write`. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Options of {@link ProgressView}. */
export interface ProgressViewOptions {
  /** Redraw lines in place (default: the output's `isTTY`). */
  tty?: boolean;
  /** Least time between two redraws on a terminal (default 100 ms). */
  throttleMs?: number;
}

/**
 * Live progress, one line per order: redrawn in place on a terminal, and printed as plain lines
 * (only when an order changes phase) otherwise, so logs stay readable.
 */
export class ProgressView {
  private readonly output: ProgressOutput;
  private readonly tty: boolean;
  private readonly throttleMs: number;
  private readonly lines = new Map<string, { text: string; phase: string }>();
  private drawn = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastDraw = 0;

  constructor(output: ProgressOutput, options: ProgressViewOptions = {}) {
    this.output = output;
    this.tty = options.tty ?? output.isTTY === true;
    this.throttleMs = options.throttleMs ?? 100;
  }

  /** Sets the line of one order; `phase` decides when a plain line is printed. */
  set(key: string, text: string, phase: string): void {
    const previous = this.lines.get(key);
    this.lines.set(key, { text, phase });
    if (!this.tty) {
      if (previous?.phase !== phase) this.output.write(`${text}\n`);
      return;
    }
    this.schedule();
  }

  /** Prints a message above the live lines. */
  log(message: string): void {
    if (!this.tty) {
      this.output.write(`${message}\n`);
      return;
    }
    this.clear();
    this.output.write(`${message}\n`);
    this.draw();
  }

  /** Draws the final state and stops redrawing. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.tty) this.draw();
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastDraw + this.throttleMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, wait);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private clear(): void {
    if (this.drawn > 0) this.output.write(`\x1b[${this.drawn}A\r`);
    for (let i = 0; i < this.drawn; i++) this.output.write('\x1b[2K\n');
    if (this.drawn > 0) this.output.write(`\x1b[${this.drawn}A\r`);
    this.drawn = 0;
  }

  private draw(): void {
    this.lastDraw = Date.now();
    const width = this.output.columns ?? 120;
    let text = this.drawn > 0 ? `\x1b[${this.drawn}A\r` : '';
    for (const { text: line } of this.lines.values())
      text += `\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}\n`;
    this.output.write(text);
    this.drawn = this.lines.size;
  }
}

const PHASE_TEXT: Record<CourierProgress['phase'], string> = {
  assigning: 'assigning courier',
  picking_up: 'picking up',
  delivering: 'delivering',
  problem: 'problem',
  delivered: 'delivered',
  cancelled: 'cancelled',
  failed: 'failed',
};

/**
 * One progress line for an order, e.g.
 * `PP-5007  ██████░░░░  60%  delivering  0.4 km to Wiener Straße 18  Tom Richter`.
 */
export function formatProgress(progress: CourierProgress): string {
  const width = 10;
  const filled = Math.round(Math.max(0, Math.min(1, progress.fraction)) * width);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
  const percent = `${Math.round(progress.fraction * 100)}%`.padStart(4);
  const km = (progress.remainingM / 1000).toFixed(1);
  const where =
    progress.phase === 'delivered'
      ? `at ${progress.order.destination.address}`
      : `${km} km to ${progress.order.destination.address}`;
  const tail = progress.message ? `  (${progress.message})` : '';
  return `${progress.order.number.padEnd(8)} ${bar} ${percent}  ${PHASE_TEXT[progress.phase].padEnd(17)} ${where}  ${progress.courier.name}${tail}`;
}
