/** Where a server's stderr and connection events go: a caller's sink, or nowhere. */
export type McpLogSink = (line: string) => void;

const TAIL_LINES = 20;

/** `RAF_DEBUG=mcp` (or `1`, `*`) prints MCP server stderr and connection events on the agent's stderr. */
export function debugSink(env: Readonly<Record<string, string | undefined>>): McpLogSink | undefined {
  const wanted = env.RAF_DEBUG?.split(',').map((s) => s.trim());
  if (!wanted?.some((s) => s === 'mcp' || s === '1' || s === '*' || s === 'true')) return undefined;
  return (line) => process.stderr.write(`${line}\n`);
}

/**
 * One server's debug log: the last lines of its stderr (quoted in errors: "why did it exit?")
 * and connection events, forwarded to the sink. The server's `env`/`headers` values are masked
 * wherever they would appear.
 */
export class ServerLog {
  private readonly tail: string[] = [];
  /** Lines kept so far, and how many there were when the current start began. */
  private kept = 0;
  private attemptStart = 0;
  private partial = '';
  /** The SDK's stdio limit (bytes) when this start's server sent a message over it, closing the connection. */
  private oversized: number | undefined;

  constructor(
    private readonly server: string,
    private readonly secrets: readonly string[],
    private readonly sink: McpLogSink | undefined,
  ) {}

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('***');
    return out;
  }

  /** A chunk of the server's stderr. */
  stderr(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > 4096) {
      lines.push(this.partial);
      this.partial = '';
    }
    for (const line of lines) if (line.trim()) this.line(`stderr: ${line.trimEnd()}`, true);
  }

  event(message: string): void {
    this.line(message, false);
  }

  /** An error of the transport. The SDK closes a stdio connection whose message is over its limit. */
  transportError(message: string): void {
    const over = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(message);
    if (over) this.oversized = Number(over[1]);
    this.event(`transport: ${message}`);
  }

  /** The limit this start's server went over with one message (then that closed the connection). */
  oversizedMessage(): number | undefined {
    return this.oversized;
  }

  private line(text: string, keep: boolean): void {
    const safe = this.redact(text.length > 2000 ? `${text.slice(0, 2000)}…` : text);
    if (keep) {
      this.kept++;
      this.tail.push(safe);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
    }
    this.sink?.(`[mcp ${this.server}] ${safe}`);
  }

  /** A new start of the server: errors quote its stderr from here on (one try's, not every try's). */
  startAttempt(): void {
    this.attemptStart = this.kept;
    this.partial = '';
    this.oversized = undefined;
  }

  /** `; its stderr ended with: …` for an error message (this start's lines, else the last ones), or nothing. */
  recentStderr(lines = 5): string {
    const sinceStart = Math.min(this.kept - this.attemptStart, this.tail.length);
    const chosen = sinceStart > 0 ? this.tail.slice(-sinceStart) : this.tail;
    const recent = chosen.slice(-lines).map((l) => l.replace(/^stderr: /, ''));
    return recent.length > 0 ? `; its stderr ended with: ${recent.join(' | ')}` : '';
  }
}
