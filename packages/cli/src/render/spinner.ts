const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-character spinner on a TTY while the model thinks; nothing when output is piped. */
export class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;

  constructor(private readonly stream: { write(text: string): unknown; isTTY?: boolean }) {}

  start(label = 'thinking'): void {
    if (!this.stream.isTTY || this.timer) return;
    this.timer = setInterval(() => {
      this.stream.write(`\r${FRAMES[this.frame++ % FRAMES.length]} ${label}…`);
    }, 80);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write('\r\x1b[2K');
  }
}
