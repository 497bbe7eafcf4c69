import type { AgentResponseUpdate, JSONValue, ToolResult } from '@raf/core';
import { escapeLine, escapeText } from './escape.js';
import { Spinner } from './spinner.js';

const MAX_ARGS = 80;

function shortJson(value: unknown, max = MAX_ARGS): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One short phrase for a tool result: what a person wants to see in a transcript. */
export function summarizeResult(result: ToolResult): string {
  if (!result.ok) return `✗ ${shortJson(result.error ?? 'failed', 120)}`;
  const data = (result.data ?? {}) as Record<string, JSONValue>;
  if (typeof data.exit_code === 'number') return `✓ exit ${data.exit_code}`;
  if (typeof data.total_lines === 'number') return `✓ ${data.total_lines} lines`;
  if (typeof data.bytes_written === 'number') return `✓ ${data.bytes_written} bytes written`;
  if (typeof data.count === 'number') return `✓ ${data.count} entries`;
  if (typeof data.total === 'number') return `✓ ${data.total} matches`;
  if (data.replaced === true) return '✓ edited';
  if (typeof data.agent === 'string' && typeof data.answer === 'string')
    return `✓ ${data.agent}: ${shortJson(data.answer, 100)}`;
  const results = data.results;
  if (
    Array.isArray(results) &&
    results.every((r) => typeof (r as { agent?: unknown } | null)?.agent === 'string')
  )
    return `✓ ${results.length} answers`;
  return '✓ done';
}

/** Readable output: the answer streams to stdout, tool lines and warnings go to stderr. */
export class HumanRenderer {
  private readonly spinner: Spinner;
  private pendingArgs = new Map<string, string>();
  private atLineStart = true;
  /** A progress line is on the terminal and the next output replaces it. */
  private transientShown = false;

  constructor(
    private readonly out: { write(text: string): unknown; isTTY?: boolean },
    private readonly err: { write(text: string): unknown; isTTY?: boolean },
  ) {
    this.spinner = new Spinner(err);
  }

  /** Calls approved on resume have no streamed arguments: show the approved ones. */
  remember(requests: readonly { callId: string; arguments: unknown }[]): void {
    for (const r of requests) this.pendingArgs.set(r.callId, JSON.stringify(r.arguments));
  }

  waiting(): void {
    this.spinner.start();
  }

  /** The terminal is handed to a question (an elicitation prompt): no spinner or progress line over it. */
  quiet(): void {
    this.spinner.stop();
    this.clearTransient();
    if (!this.atLineStart) this.out.write('\n');
    this.atLineStart = true;
  }

  /** A line that the next output overwrites: tool progress, on a terminal only. */
  private transient(text: string): void {
    if (!this.err.isTTY) return;
    this.spinner.stop();
    this.err.write(`\r\x1b[2K${text}`);
    this.transientShown = true;
  }

  private clearTransient(): void {
    if (!this.transientShown) return;
    this.err.write('\r\x1b[2K');
    this.transientShown = false;
  }

  private text(delta: string): void {
    this.clearTransient();
    this.out.write(escapeText(delta));
    this.atLineStart = delta.endsWith('\n');
  }

  private line(text: string): void {
    this.clearTransient();
    if (!this.atLineStart) this.out.write('\n');
    this.atLineStart = true;
    this.err.write(`${escapeLine(text)}\n`);
  }

  render(update: AgentResponseUpdate): void {
    if (update.type !== 'response-metadata' && update.type !== 'usage' && update.type !== 'tool-progress')
      this.spinner.stop();
    switch (update.type) {
      case 'text-delta':
        this.text(update.delta);
        break;
      case 'tool-call-end':
        this.pendingArgs.set(update.callId, update.arguments);
        break;
      case 'tool-called':
        this.line(
          `→ ${update.name} ${shortJson(this.pendingArgs.get(update.callId) ?? '')} ${summarizeResult(update.result)}`,
        );
        this.spinner.start();
        break;
      case 'tool-progress':
        this.transient(`… ${update.name}: ${shortJson(update.message, 120)}`);
        break;
      case 'warning':
        this.line(`warning: ${update.message}`);
        break;
      case 'error':
        this.line(`error: ${update.message}`);
        break;
      case 'finish':
        this.spinner.stop();
        this.clearTransient();
        if (!this.atLineStart) this.text('\n');
        break;
      default:
        break;
    }
  }
}
