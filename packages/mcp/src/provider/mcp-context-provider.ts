import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import {
  CancelledError,
  type ContextResult,
  getErrorMessage,
  type IContextProvider,
  type InvokingContext,
  type ITool,
} from '@raf/core';
import type { McpCatalog } from '../catalog/mcp-catalog.js';
import type { ServerTools } from '../catalog/server-tools.js';
import type { McpConnection } from '../connection/mcp-connection.js';
import { GET_MCP_PROMPT, READ_MCP_RESOURCE } from '../tools/content-tools.js';
import { capResourceResult, DEFAULT_MAX_RESULT_BYTES } from '../tools/result-cap.js';

const LISTED = 50;
const SERVER_INSTRUCTIONS_CHARS = 4000;

function line(text: string | undefined): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function listing<T>(items: readonly T[], render: (item: T) => string): string[] {
  const lines = items.slice(0, LISTED).map(render);
  if (items.length > LISTED) lines.push(`- … and ${items.length - LISTED} more`);
  return lines;
}

/**
 * `contexts: [{ kind: mcp }]`: an MCP server whose tools are offered on every run as the server
 * lists them then (a `tools/list_changed` is seen on the run's next round), whose resources and prompts
 * are listed in the instructions (read with `read_mcp_resource`, fetched with `get_mcp_prompt`),
 * and whose own instructions reach the model. A server that is down is reconnected before the
 * run; if that fails, the run goes on with the last tool list and a warning.
 */
export class McpContextProvider implements IContextProvider {
  readonly kind = 'mcp';
  readonly injectsTools = true;
  readonly name: string;
  private resources: Resource[] = [];
  private templates: ResourceTemplate[] = [];
  private prompts: Prompt[] = [];
  private listedVersion = -1;
  /** The followed resources' contents as last read, with the version they were read at. */
  private readonly followed = new Map<string, { version: number; text: string }>();

  constructor(
    private readonly entry: ServerTools,
    private readonly catalog: McpCatalog,
    private readonly settings: {
      instructions: boolean;
      subscribe?: readonly string[];
      maxResultBytes?: number;
    },
  ) {
    this.name = entry.server;
  }

  get connection(): McpConnection {
    return this.entry.connection;
  }

  /** The tools this provider would inject on a run now (what `inspect` lists). */
  get tools(): ITool[] {
    return this.catalog.injectedTools(this.entry);
  }

  /** Whether the agent sees `search_tools` / `call_tool` instead of the servers' tools right now. */
  get deferred(): boolean {
    return this.catalog.dynamicDeferred();
  }

  /** Lists resources and prompts again if the server said they changed (or reconnected). */
  async refresh(signal?: AbortSignal): Promise<void> {
    const { connection } = this;
    if (this.listedVersion === connection.contentVersion) return;
    const version = connection.contentVersion;
    const content = this.catalog.contentSettings(this.entry);
    if (content?.resources)
      ({ resources: this.resources, templates: this.templates } = await connection.listResources(signal));
    if (content?.prompts) this.prompts = await connection.listPrompts(signal);
    this.listedVersion = version;
  }

  /**
   * `subscribe: [uri…]`: each resource read again when the server said it changed (or, from a
   * server without subscriptions, on every run), so the next model request sees what it is now.
   */
  private async follow(signal: AbortSignal): Promise<void> {
    const uris = this.settings.subscribe ?? [];
    if (uris.length === 0) return;
    const { connection } = this;
    await connection.subscribe(uris, signal);
    const budget = Math.floor((this.settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES) / uris.length);
    for (const uri of uris) {
      const version = connection.resourceVersion(uri);
      const known = this.followed.get(uri);
      if (known && known.version === version && connection.pushesResourceChanges) continue;
      const { result, truncation } = capResourceResult(
        await connection.readResource(uri, { signal, timeoutMs: 30_000 }),
        budget,
      );
      const text = result.contents
        .map((c) =>
          'text' in c && typeof c.text === 'string' ? c.text : `[${c.mimeType ?? 'binary'} content]`,
        )
        .join('\n');
      this.followed.set(uri, {
        version,
        text: truncation ? `${text}\n[truncated: ${truncation.totalBytes} bytes in all]` : text,
      });
    }
  }

  async onInvoking(context: InvokingContext): Promise<ContextResult> {
    const warnings: string[] = [];
    try {
      await this.connection.connect(context.signal);
      await this.refresh(context.signal);
      await this.follow(context.signal);
    } catch (error) {
      if (CancelledError.isInstance(error) || context.signal.aborted) throw error;
      warnings.push(
        `MCP server '${this.name}' is unavailable (its last known tools are offered): ${getErrorMessage(error)}`,
      );
    }
    for (const tool of this.catalog.refusedTools(this.entry))
      warnings.push(
        `MCP server '${this.name}' offers a tool named '${tool.name}', which the agent already has: not offered (a server's tool never replaces one of the agent's)`,
      );
    return {
      instructions: this.instructions(),
      tools: this.tools,
      // Before each later round: a list_changed mid-run reaches the model on its next round.
      currentTools: async () => {
        await this.connection.toolListSettled();
        return this.tools;
      },
      ...(warnings.length > 0 && { warnings }),
    };
  }

  /** The server's instructions, resources and prompts, as the model reads them. */
  instructions(): string {
    const name = JSON.stringify(this.name);
    const parts: string[] = [];
    const own = this.connection.instructions?.trim();
    if (this.settings.instructions && own) {
      const text =
        own.length > SERVER_INSTRUCTIONS_CHARS ? `${own.slice(0, SERVER_INSTRUCTIONS_CHARS)}…` : own;
      parts.push(`Instructions of the MCP server ${name}:\n${text}`);
    }
    if (this.resources.length > 0 || this.templates.length > 0) {
      parts.push(
        [
          `Resources of the MCP server ${name} (read one with ${READ_MCP_RESOURCE} {"server": ${name}, "uri": …}):`,
          ...listing(
            this.resources,
            (r) =>
              `- ${r.uri} — ${line(r.title ?? r.name)}${r.description ? `: ${line(r.description)}` : ''}`,
          ),
          ...listing(
            this.templates,
            (t) =>
              `- ${t.uriTemplate} (a template: fill in the {…} parts) — ${line(t.title ?? t.name)}${t.description ? `: ${line(t.description)}` : ''}`,
          ),
        ].join('\n'),
      );
    }
    for (const [uri, { text }] of this.followed)
      parts.push(`The resource ${uri} of the MCP server ${name}, as it is now:\n${text}`);
    if (this.prompts.length > 0) {
      parts.push(
        [
          `Prompts of the MCP server ${name} (get one with ${GET_MCP_PROMPT} {"server": ${name}, "name": …, "arguments": {…}}):`,
          ...listing(this.prompts, (p) => {
            const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '*' : ''}`).join(', ');
            return `- ${p.name}${args ? `(${args})` : ''}${p.description ? `: ${line(p.description)}` : ''}`;
          }),
        ].join('\n'),
      );
    }
    return parts.join('\n\n');
  }

  /** Stops the server (stdio) or ends the session (HTTP). */
  close(): Promise<void> {
    return this.connection.close();
  }
}
