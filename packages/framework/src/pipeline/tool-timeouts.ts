import { ConfigError, type ITool } from '@raf/core';

/** How long a tool call may run when nothing else says: two minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** A timeout must be a positive number of milliseconds (`Infinity`: none). */
export function checkTimeoutMs(ms: number, what: string): number {
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms <= 0) {
    throw new ConfigError(`${what} must be a positive number of milliseconds, got ${String(ms)}`);
  }
  return ms;
}

/**
 * Each call's time limit: the agent's per-tool setting, else the tool's `manifest.timeoutMs`, else
 * the agent's default.
 */
export class ToolTimeouts {
  constructor(
    readonly defaultMs: number = DEFAULT_TOOL_TIMEOUT_MS,
    private readonly byName: ReadonlyMap<string, number> | undefined = undefined,
  ) {}

  of(tool: ITool): number {
    return this.byName?.get(tool.name) ?? tool.manifest?.timeoutMs ?? this.defaultMs;
  }
}
