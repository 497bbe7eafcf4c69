import {
  CancelledError,
  type ITool,
  type JSONValue,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from '@raf/core';
import type { McpConnection } from '../connection/mcp-connection.js';
import { McpServerError } from '../errors.js';
import { MCP_TOOL_MANIFEST } from './mcp-tool.js';
import { capDescription, capPromptMessages, DEFAULT_MAX_DESCRIPTION_BYTES } from './result-cap.js';
import { resourceContents, toToolResult } from './tool-result.js';

export const READ_MCP_RESOURCE = 'read_mcp_resource';
export const GET_MCP_PROMPT = 'get_mcp_prompt';

/** The servers whose resources / prompts the agent's `kind: mcp` contexts offer. */
export interface ContentSource {
  servers(what: 'resources' | 'prompts'): readonly McpConnection[];
  timeoutMs(server: McpConnection): number;
  /** What of an answer reaches the model (`maxResultBytes` of the server's entry). */
  maxResultBytes(server: McpConnection): number;
}

function pick(source: ContentSource, what: 'resources' | 'prompts', server: string | undefined) {
  const servers = source.servers(what);
  if (server === undefined) {
    if (servers.length === 1) return servers[0]!;
    return `say which server: ${servers.map((s) => s.name).join(', ')}`;
  }
  return (
    servers.find((s) => s.name === server) ??
    `no MCP server '${server}' offers ${what}; these do: ${servers.map((s) => s.name).join(', ')}`
  );
}

async function guarded(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (error) {
    if (CancelledError.isInstance(error)) throw error;
    if (McpServerError.isInstance(error)) return toolFailure(error.message);
    throw error;
  }
}

const serverProperty = (what: string) => ({
  type: 'string',
  description: `The MCP server (needed when more than one offers ${what})`,
});

function readResourceTool(source: ContentSource): ITool<{ server?: string; uri: string }> {
  return {
    name: READ_MCP_RESOURCE,
    kind: 'mcp',
    manifest: MCP_TOOL_MANIFEST,
    description: 'Reads a resource of an MCP server by its URI (the instructions list them).',
    parameters: {
      type: 'object',
      properties: {
        server: serverProperty('resources'),
        uri: { type: 'string', description: 'The resource URI' },
      },
      required: ['uri'],
    },
    execute: (args, context: ToolExecutionContext) =>
      guarded(async () => {
        const server = pick(source, 'resources', args.server);
        if (typeof server === 'string') return toolFailure(server);
        const result = await server.readResource(args.uri, {
          signal: context.signal,
          timeoutMs: source.timeoutMs(server),
        });
        return toolSuccess(resourceContents(result, source.maxResultBytes(server)));
      }),
  };
}

function getPromptTool(
  source: ContentSource,
): ITool<{ server?: string; name: string; arguments?: Record<string, string> }> {
  return {
    name: GET_MCP_PROMPT,
    kind: 'mcp',
    manifest: MCP_TOOL_MANIFEST,
    description:
      'Gets a prompt of an MCP server (the instructions list them) filled with its arguments: the messages it holds.',
    parameters: {
      type: 'object',
      properties: {
        server: serverProperty('prompts'),
        name: { type: 'string', description: 'The prompt name' },
        arguments: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: "The prompt's arguments",
        },
      },
      required: ['name'],
    },
    execute: (args, context) =>
      guarded(async () => {
        const server = pick(source, 'prompts', args.server);
        if (typeof server === 'string') return toolFailure(server);
        const result = await server.getPrompt(args.name, args.arguments ?? {}, {
          signal: context.signal,
          timeoutMs: source.timeoutMs(server),
        });
        // The messages' contents share one budget and the block limit, as one tool result's blocks do.
        const {
          messages: kept,
          truncation,
          note,
        } = capPromptMessages(result.messages, source.maxResultBytes(server));
        const messages = kept.map((message): JSONValue => {
          const { data } = toToolResult({ content: [message.content] }, GET_MCP_PROMPT);
          return { role: message.role, content: data ?? '' };
        });
        return toolSuccess({
          ...(result.description && {
            description: capDescription(result.description, DEFAULT_MAX_DESCRIPTION_BYTES),
          }),
          messages,
          ...(truncation && (truncation as unknown as Record<string, JSONValue>)),
          ...(note && { note }),
        });
      }),
  };
}

/** `read_mcp_resource {server?, uri}` and `get_mcp_prompt {server?, name, arguments?}`, over every context server. */
export function createContentTools(source: ContentSource): { readResource: ITool; getPrompt: ITool } {
  return { readResource: readResourceTool(source) as ITool, getPrompt: getPromptTool(source) as ITool };
}
