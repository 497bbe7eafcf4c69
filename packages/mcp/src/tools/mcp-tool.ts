import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  CancelledError,
  createToolManifest,
  type ITool,
  type JSONSchema,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
} from '@raf/core';
import type { McpCallOptions, McpConnection } from '../connection/mcp-connection.js';
import { McpServerError } from '../errors.js';
import { capDescription } from './result-cap.js';
import { toToolResult } from './tool-result.js';

/** MCP tools are user tools to the runtime policy: parallel, proxied to the main process from workers. */
export const MCP_TOOL_MANIFEST = Object.freeze(
  createToolManifest({ kind: 'custom', executionMode: 'parallel', workerRoutingHint: 'main-process-proxy' }),
);

/** The server's `inputSchema` as tool parameters: an object schema without `$schema` (some providers refuse it). */
export function toParameters(schema: Tool['inputSchema']): JSONSchema {
  const { $schema: _ignored, ...rest } = schema as JSONSchema & { $schema?: unknown };
  return { ...rest, type: 'object', properties: (rest.properties as JSONSchema['properties']) ?? {} };
}

/** Which connection a call goes through: its user's, when credentials come per request. */
export type ConnectionRoute = (context: ToolExecutionContext) => Promise<McpConnection>;

/** `MCP error -32602: …` reads as `…` to the model. */
function failureOf(error: unknown): ToolResult | undefined {
  if (McpServerError.isInstance(error)) return toolFailure(error.message);
  return undefined;
}

/**
 * One tool of an MCP server as an agent tool. Calls go through the server's connection (which
 * reconnects as needed); a cancelled run cancels the call on the server (`notifications/cancelled`);
 * `isError` results are `ok: false`.
 */
export class McpTool implements ITool<Record<string, unknown>> {
  readonly kind = 'mcp';
  readonly manifest = MCP_TOOL_MANIFEST;
  readonly name: string;
  readonly description: string;
  readonly parameters: JSONSchema;
  /** The server's name for the tool (the local one may be renamed or prefixed). */
  readonly remoteName: string;
  readonly server: string;
  /** Present only on gated tools, so the tool loop skips the approval check for the others. */
  readonly requiresApproval?: () => boolean;
  private readonly timeoutMs: number;
  private readonly maxResultBytes: number;
  private readonly route: ConnectionRoute | undefined;

  constructor(
    private readonly connection: McpConnection,
    remote: Tool,
    options: {
      name: string;
      gated: boolean;
      timeoutMs: number;
      maxResultBytes: number;
      maxDescriptionBytes: number;
      route?: ConnectionRoute;
    },
  ) {
    this.route = options.route;
    this.name = options.name;
    this.remoteName = remote.name;
    this.server = connection.name;
    // Sent with every request: a server's description is capped (issue 26: 2 MB on every request).
    this.description = capDescription(
      remote.description?.trim() ||
        remote.title ||
        `${remote.name} (a tool of the MCP server ${connection.name})`,
      options.maxDescriptionBytes,
    );
    this.maxResultBytes = options.maxResultBytes;
    this.parameters = toParameters(remote.inputSchema);
    this.timeoutMs = options.timeoutMs;
    if (options.gated) this.requiresApproval = () => true;
  }

  async execute(args: Record<string, unknown>, context: ToolExecutionContext): Promise<ToolResult> {
    const options: McpCallOptions = { signal: context.signal, timeoutMs: this.timeoutMs };
    if (context.reportProgress) options.onProgress = context.reportProgress;
    if (context.requestInput) options.requestInput = context.requestInput;
    try {
      const connection = this.route ? await this.route(context) : this.connection;
      const result = await connection.callTool(this.remoteName, args ?? {}, options);
      return toToolResult(result, this.name, this.maxResultBytes);
    } catch (error) {
      if (CancelledError.isInstance(error)) throw error;
      const failure = failureOf(error);
      if (failure) return failure;
      throw error;
    }
  }

  /** Closes the connection to this tool's server (shared by the server's other tools). */
  close(): Promise<void> {
    return this.connection.close();
  }
}
