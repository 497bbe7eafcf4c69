/** A queue an async producer fills and one `for await` drains; `end()` or `fail()` closes it. */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: (() => void) | undefined;
  private done = false;
  private failure: { error: unknown } | undefined;

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.done = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.done = true;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    for (;;) {
      if (index < this.items.length) {
        const item = this.items[index++] as T;
        // Drop what was read so a long run does not keep every event.
        if (index > 1024) {
          this.items.splice(0, index);
          index = 0;
        }
        yield item;
        continue;
      }
      if (this.done) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}
