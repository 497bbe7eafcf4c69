import { RafError, type RafErrorOptions } from '@raf/core';

const key = 'raf.error.McpServerError';
const symbol = Symbol.for(key);

/**
 * An MCP server could not be reached, exited, or broke the protocol. The message names the server
 * and never carries the values of its `env` or `headers` (they are secrets more often than not).
 */
export class McpServerError extends RafError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the brand `isInstance` looks for
  private readonly [symbol] = true;
  readonly server: string;
  constructor(server: string, message: string, options?: RafErrorOptions) {
    super('RAF_TOOL', message, options);
    this.name = 'McpServerError';
    this.server = server;
  }
  static override isInstance(error: unknown): error is McpServerError {
    return RafError.hasMarker(error, key);
  }
}
