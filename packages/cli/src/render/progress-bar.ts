import type { IndexProgress } from '@raf/core';

const WIDTH = 24;

/** A one-line progress bar on a TTY (`[#####-----] 12/40 docs/a.md`); nothing when output is piped. */
export class ProgressBar {
  private drawn = false;
  private last = 0;

  constructor(
    private readonly stream: { write(text: string): unknown; isTTY?: boolean; columns?: number },
    private readonly label: string,
  ) {}

  update(progress: IndexProgress): void {
    if (!this.stream.isTTY) return;
    const now = Date.now();
    // At most ~20 redraws a second: a big corpus reports thousands of steps.
    if (progress.phase === 'index' && now - this.last < 50 && progress.done < progress.total) return;
    this.last = now;
    const share = progress.total === 0 ? 1 : Math.min(1, progress.done / progress.total);
    const filled = Math.round(share * WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
    const line = `${this.label} [${bar}] ${progress.done}/${progress.total} ${progress.item ?? ''}`;
    const columns = this.stream.columns || 100; // 0 on a terminal of unknown size
    this.stream.write(`\r\x1b[2K${line.length > columns - 1 ? `${line.slice(0, columns - 2)}…` : line}`);
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
