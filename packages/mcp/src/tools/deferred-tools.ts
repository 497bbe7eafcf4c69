import {
  type ITool,
  type JSONSchema,
  type JSONValue,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  toolRequiresApproval,
  toolSuccess,
} from '@raf/core';
import { checkArguments } from '@raf/framework';
import { MCP_TOOL_MANIFEST, type McpTool } from './mcp-tool.js';

/** What the deferred pair reads: the MCP tools the model is not shown directly, as they are now. */
export interface DeferredSource {
  deferredTools(): readonly McpTool[];
}

export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);

/** Name hits count more than description hits; a query that is a tool's exact name comes first. */
function score(tool: McpTool, query: string, terms: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const text = `${tool.description} ${tool.server}`.toLowerCase();
  let total = name === query.trim().toLowerCase() ? 100 : 0;
  for (const term of terms) {
    if (name.includes(term)) total += 3;
    if (text.includes(term)) total += 1;
  }
  return total;
}

function describeTool(tool: McpTool): JSONValue {
  return {
    name: tool.name,
    server: tool.server,
    description: tool.description,
    parameters: tool.parameters as JSONValue,
  };
}

function searchTool(source: DeferredSource): ITool<{ query: string; limit?: number }> {
  return {
    name: SEARCH_TOOLS,
    kind: 'mcp',
    manifest: MCP_TOOL_MANIFEST,
    get description() {
      const tools = source.deferredTools();
      const servers = [...new Set(tools.map((t) => t.server))].join(', ');
      return `Finds tools by keywords among ${tools.length} tools of the MCP servers ${servers}, which are not listed directly. Returns each match's name, description and JSON Schema; run one with ${CALL_TOOL}.`;
    },
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in a few words (or its name)' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 50,
          description: 'Most matches to return (default 8)',
        },
      },
      required: ['query'],
    },
    async execute({ query, limit }) {
      const tools = source.deferredTools();
      const terms = words(query);
      const ranked = tools
        .map((tool) => ({ tool, score: score(tool, query, terms) }))
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, limit ?? 8);
      return toolSuccess({
        matches: ranked.map((hit) => describeTool(hit.tool)),
        ...(ranked.length === 0 && {
          hint: `no tool matched "${query}"; try other words (${tools.length} tools available)`,
        }),
      });
    },
  };
}

interface CallArgs {
  name: string;
  arguments?: Record<string, unknown>;
}

function callTool(source: DeferredSource): ITool<CallArgs> {
  const find = (name: string | undefined) => source.deferredTools().find((t) => t.name === name);
  return {
    name: CALL_TOOL,
    kind: 'mcp',
    manifest: MCP_TOOL_MANIFEST,
    description: `Runs a tool found with ${SEARCH_TOOLS}: its name and its arguments (matching its JSON Schema).`,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: `The tool's name, as ${SEARCH_TOOLS} returned it` },
        arguments: { type: 'object', description: "The tool's arguments", additionalProperties: true },
      },
      required: ['name'],
    } satisfies JSONSchema,
    // The named tool's own gate: `approval_mode` holds through the deferred pair too.
    requiresApproval(args?: CallArgs) {
      if (args === undefined) return source.deferredTools().some((t) => t.requiresApproval !== undefined);
      const tool = find(args.name);
      return tool ? toolRequiresApproval(tool, args.arguments ?? {}) : false;
    },
    async execute(args: CallArgs, context: ToolExecutionContext): Promise<ToolResult> {
      const tool = find(args.name);
      if (!tool) return toolFailure(`No tool named '${args.name}'; find one with ${SEARCH_TOOLS}`);
      const check = checkArguments(tool, JSON.stringify(args.arguments ?? {}));
      if (!check.ok) return toolFailure(check.error);
      return tool.execute(check.args as Record<string, unknown>, context);
    },
  };
}

/** `search_tools {query}` / `call_tool {name, arguments}`: every deferred tool behind two schemas. */
export function createDeferredTools(source: DeferredSource): [ITool, ITool] {
  return [searchTool(source) as ITool, callTool(source) as ITool];
}
