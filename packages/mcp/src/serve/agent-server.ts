import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  AgentResponseUpdate,
  ApprovalResponse,
  JSONValue,
  PendingApprovalBatch,
  ToolApprovalRequestUpdate,
} from '@raf/core';
import { getErrorMessage } from '@raf/core';
import type { AgentRunOptions, AgentSession, ChatClientAgent } from '@raf/framework';
import * as z from 'zod';

/** The agent as the MCP server needs it (a `ChatClientAgent` or anything that runs like one). */
export type ServableAgent = Pick<ChatClientAgent, 'name' | 'description' | 'run' | 'createSession'>;

export interface AgentMcpServerOptions {
  /** The one tool's name (default: the agent's name, made to fit the tool-name rule). */
  toolName?: string;
  /**
   * A paused run: `ask` (default) asks the client through MCP elicitation when it supports it, and
   * answers with an error saying approval is needed when it does not; `approve` / `deny` decide alone.
   */
  approvals?: 'ask' | 'approve' | 'deny';
  /** Where the server reports what it does (default: nowhere). */
  log?: (line: string) => void;
}

export const MAX_SESSIONS = 1000;
export const MAX_APPROVAL_ROUNDS = 20;

/** The server's memory of conversations: `session` in a call continues one (oldest forgotten first). */
export class AgentSessions {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly busy = new Set<string>();

  get(id: string): AgentSession | undefined {
    return this.sessions.get(id);
  }

  add(session: AgentSession): void {
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      if (!this.busy.has(oldest)) this.sessions.delete(oldest);
    }
  }

  /** One run per session at a time. */
  claim(id: string): boolean {
    if (this.busy.has(id)) return false;
    this.busy.add(id);
    return true;
  }

  release(id: string): void {
    this.busy.delete(id);
  }
}

export function pendingRequests(batch: PendingApprovalBatch): ToolApprovalRequestUpdate[] {
  const gated = new Set(batch.gatedCallIds);
  return batch.toolCalls
    .filter((call) => gated.has(call.id))
    .map((call) => {
      let args: JSONValue = call.arguments;
      try {
        args = JSON.parse(call.arguments) as JSONValue;
      } catch {
        // shown as the raw text
      }
      const update: ToolApprovalRequestUpdate = {
        type: 'tool-approval-request',
        callId: call.id,
        name: call.name,
        arguments: args,
        description: '',
      };
      const target = batch.resolvedTargets?.[call.id];
      if (target !== undefined) update.resolvedTarget = target;
      return update;
    });
}

export const describeRequest = (r: ToolApprovalRequestUpdate) =>
  `${r.name} ${r.resolvedTarget ?? JSON.stringify(r.arguments)}`.slice(0, 500);

export const failure = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

export interface Outcome {
  text: string;
  finish: string;
  error?: string;
  requests: ToolApprovalRequestUpdate[];
}

export async function runTurn(
  agent: ServableAgent,
  input: string | undefined,
  options: AgentRunOptions,
  onUpdate: (update: AgentResponseUpdate) => void,
): Promise<Outcome> {
  const outcome: Outcome = { text: '', finish: 'other', requests: [] };
  for await (const update of agent.run(input, options)) {
    onUpdate(update);
    if (update.type === 'text-delta') outcome.text += update.delta;
    else if (update.type === 'tool-approval-request') outcome.requests.push(update);
    else if (update.type === 'error') outcome.error = update.message;
    else if (update.type === 'finish') outcome.finish = update.reason;
  }
  return outcome;
}

/** `quickstart` → `quickstart`; `My agent!` → `My_agent_`. */
export function toolNameOf(agent: ServableAgent): string {
  return agent.name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) || 'agent';
}

/**
 * Decides a paused run's approvals for an MCP tool call: `approve`/`deny` alone, or `ask` the
 * client through MCP elicitation, one form per call; a client without elicitation gets the reason
 * back as a string (the run stays paused). `raf serve`'s `/mcp` uses it too.
 */
export async function decideApprovals(
  server: McpServer,
  agentName: string,
  requests: readonly ToolApprovalRequestUpdate[],
  options: {
    mode: 'ask' | 'approve' | 'deny';
    requestId: string | number;
    signal: AbortSignal;
    log?: (line: string) => void;
  },
): Promise<ApprovalResponse[] | string> {
  const { mode, requestId, signal } = options;
  const log = options.log ?? (() => undefined);
  if (mode !== 'ask') {
    return requests.map((r) =>
      mode === 'approve'
        ? { callId: r.callId, approved: true }
        : { callId: r.callId, approved: false, reason: 'Denied by the MCP server settings' },
    );
  }
  if (!server.server.getClientCapabilities()?.elicitation) {
    return `approval needed: the agent wants to run ${requests.map(describeRequest).join('; ')}. This MCP client cannot be asked (it does not support elicitation); the run is paused.`;
  }
  const decisions: ApprovalResponse[] = [];
  for (const request of requests) {
    const answer = await server.server.elicitInput(
      {
        mode: 'form',
        message: `The agent ${agentName} wants to run ${describeRequest(request)}. Approve?`,
        requestedSchema: {
          type: 'object',
          properties: {
            approve: { type: 'boolean', title: 'Approve', description: `Run ${request.name}` },
            reason: { type: 'string', title: 'Reason', description: 'Why not (shown to the agent)' },
          },
          required: ['approve'],
        },
      },
      { relatedRequestId: requestId, signal },
    );
    const approved = answer.action === 'accept' && answer.content?.approve === true;
    const reason = typeof answer.content?.reason === 'string' ? answer.content.reason : undefined;
    log(`approval ${approved ? 'granted' : `refused (${answer.action})`}: ${describeRequest(request)}`);
    decisions.push(
      approved
        ? { callId: request.callId, approved: true }
        : {
            callId: request.callId,
            approved: false,
            ...(reason || answer.action !== 'accept'
              ? { reason: reason || `the user chose ${answer.action}` }
              : {}),
          },
    );
  }
  return decisions;
}

/**
 * Registers the agent as one tool on an SDK `McpServer`: `{ input, session? }` runs a turn (a
 * `session` from an earlier answer continues that conversation) and answers with the agent's
 * text and `{ sessionId, finishReason, text }` as structured content. Tool calls are reported as
 * progress notifications when the client asks for progress.
 */
export function registerAgentTool(
  server: McpServer,
  agent: ServableAgent,
  sessions: AgentSessions,
  options: AgentMcpServerOptions = {},
): void {
  const name = options.toolName ?? toolNameOf(agent);
  const log = options.log ?? (() => undefined);
  const mode = options.approvals ?? 'ask';

  const decide = (requests: ToolApprovalRequestUpdate[], requestId: string | number, signal: AbortSignal) =>
    decideApprovals(server, agent.name, requests, { mode, log, requestId, signal });

  server.registerTool(
    name,
    {
      description:
        agent.description ?? `Runs the agent ${agent.name}: give it a task or a question in input.`,
      inputSchema: {
        input: z.string().describe('The message for the agent'),
        session: z
          .string()
          .optional()
          .describe("Continue an earlier conversation: the sessionId of that call's answer"),
      },
      outputSchema: { sessionId: z.string(), finishReason: z.string(), text: z.string() },
    },
    async ({ input, session: sessionId }, extra): Promise<CallToolResult> => {
      const known = sessionId === undefined ? undefined : sessions.get(sessionId);
      if (sessionId !== undefined && !known)
        return failure(`unknown session '${sessionId}' (sessions live as long as this server)`);
      const session = known ?? agent.createSession();
      if (!sessions.claim(session.id))
        return failure(`session '${session.id}' is still running an earlier call`);
      sessions.add(session);
      const progressToken = extra._meta?.progressToken;
      let progress = 0;
      const onUpdate = (update: AgentResponseUpdate) => {
        if (progressToken === undefined || update.type !== 'tool-call-end') return;
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: ++progress, message: `→ ${update.name}` },
          })
          .catch(() => undefined);
      };
      try {
        let text = '';
        let message: string | undefined = input;
        let approvals: ApprovalResponse[] | undefined;
        if (session.pendingApproval) {
          // Paused by an earlier call whose client could not answer: ask again before anything new.
          const decided = await decide(
            pendingRequests(session.pendingApproval),
            extra.requestId,
            extra.signal,
          );
          if (typeof decided === 'string') return failure(decided);
          approvals = decided;
          message = undefined;
        }
        for (let round = 0; round < MAX_APPROVAL_ROUNDS; round++) {
          const outcome = await runTurn(
            agent,
            message,
            { session, signal: extra.signal, ...(approvals && { approvals }) },
            onUpdate,
          );
          text += outcome.text;
          if (outcome.error) return failure(`the agent failed: ${outcome.error}`);
          if (outcome.finish !== 'awaitingApproval') {
            const answer = { sessionId: session.id, finishReason: outcome.finish, text };
            return {
              content: [{ type: 'text', text: text || `(finished: ${outcome.finish})` }],
              structuredContent: answer,
            };
          }
          const decided = await decide(outcome.requests, extra.requestId, extra.signal);
          if (typeof decided === 'string') return failure(`${decided} (session ${session.id})`);
          approvals = decided;
          message = undefined;
        }
        return failure(`the agent asked for approval more than ${MAX_APPROVAL_ROUNDS} times in one call`);
      } catch (error) {
        return failure(`the agent failed: ${getErrorMessage(error)}`);
      } finally {
        sessions.release(session.id);
      }
    },
  );
}
