import type { CapturedOutput } from './tool-operations.js';

/** Keeps the first `headLimit` and the last `tailLimit` bytes of a stream, and counts the rest. */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.headLimit) {
      const part = chunk.subarray(0, this.headLimit - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }

  result(): CapturedOutput {
    const tail = Buffer.concat(this.tail);
    return {
      head: Buffer.concat(this.head),
      tail: tail.subarray(Math.max(0, tail.length - this.tailLimit)),
      totalBytes: this.total,
    };
  }
}
