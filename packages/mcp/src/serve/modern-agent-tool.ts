import { randomUUID } from 'node:crypto';
import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  RequestStateCodec,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { AgentResponseUpdate, ApprovalResponse, ToolApprovalRequestUpdate } from '@raf/core';
import { getErrorMessage } from '@raf/core';
import * as z from 'zod';
import {
  type AgentMcpServerOptions,
  type AgentSessions,
  describeRequest,
  failure,
  MAX_APPROVAL_ROUNDS,
  MAX_SESSIONS,
  pendingRequests,
  runTurn,
  type ServableAgent,
  toolNameOf,
} from './agent-server.js';

type ServerSdk = typeof import('@modelcontextprotocol/server');

/** What a call that asked for approvals carries back (sealed with the server's key: never trusted raw). */
export interface ApprovalState {
  sessionId: string;
  /** Which asking this answers: the session's latest, once (a replayed state answers nothing). */
  ask: string;
}

/**
 * The open asking of each paused session (session id → the `ask` its state carries), per set of
 * sessions: a state answers the approvals it was minted for only. Without it a state replayed
 * within its lifetime answered whatever batch the session waited on then (a "yes" to one call
 * ran a later one the user was never shown).
 */
const openAsks = new WeakMap<AgentSessions, Map<string, string>>();
function asksOf(sessions: AgentSessions): Map<string, string> {
  const asks = openAsks.get(sessions) ?? new Map<string, string>();
  openAsks.set(sessions, asks);
  return asks;
}

const approvalSchema = (name: string) => ({
  type: 'object' as const,
  properties: {
    approve: { type: 'boolean' as const, title: 'Approve', description: `Run ${name}` },
    reason: { type: 'string' as const, title: 'Reason', description: 'Why not (shown to the agent)' },
  },
  required: ['approve'],
});

/** Whether the client said it answers elicitations (per request on 2026-07-28, at initialize before). */
function canBeAsked(sdk: ServerSdk, server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[sdk.CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  return Boolean(declared?.elicitation ?? server.server.getClientCapabilities()?.elicitation);
}

/**
 * The agent as one tool on an SDK v2 `McpServer`, for the 2026-07-28 revision (and the 2025 one
 * through the SDK's legacy shim, over stdio). Same tool, schema and answers as `registerAgentTool`;
 * approvals differ in transport only: a paused run answers `input_required` with one form per
 * gated call and a sealed `requestState` naming its session, and the client's retry carries the
 * answers (multi-round-trip requests replace the server's elicitation request of 2025).
 */
export function registerModernAgentTool(
  sdk: ServerSdk,
  server: McpServer,
  agent: ServableAgent,
  sessions: AgentSessions,
  codec: RequestStateCodec<ApprovalState>,
  options: AgentMcpServerOptions = {},
): void {
  const name = options.toolName ?? toolNameOf(agent);
  const log = options.log ?? (() => undefined);
  const mode = options.approvals ?? 'ask';

  /** `approve` / `deny` alone; `ask`: an `input_required` answer (or the reason nobody can be asked). */
  const ask = async (
    requests: readonly ToolApprovalRequestUpdate[],
    sessionId: string,
    ctx: ServerContext,
  ): Promise<ApprovalResponse[] | CallToolResult | InputRequiredResult> => {
    if (mode !== 'ask')
      return requests.map((r) =>
        mode === 'approve'
          ? { callId: r.callId, approved: true }
          : { callId: r.callId, approved: false, reason: 'Denied by the MCP server settings' },
      );
    if (!canBeAsked(sdk, server, ctx))
      return failure(
        `approval needed: the agent wants to run ${requests.map(describeRequest).join('; ')}. This MCP client cannot be asked (it does not support elicitation); the run is paused. (session ${sessionId})`,
      );
    const inputRequests = Object.fromEntries(
      requests.map((request, i) => [
        `approve_${i}`,
        sdk.inputRequired.elicit({
          mode: 'form',
          message: `The agent ${agent.name} wants to run ${describeRequest(request)}. Approve?`,
          requestedSchema: approvalSchema(request.name),
        }),
      ]),
    );
    const asking = randomUUID();
    const asks = asksOf(sessions);
    asks.set(sessionId, asking);
    // A client that pauses session after session: the askings of sessions evicted since go too.
    if (asks.size > 2 * MAX_SESSIONS) for (const id of asks.keys()) if (!sessions.get(id)) asks.delete(id);
    return sdk.inputRequired({ inputRequests, requestState: await codec.mint({ sessionId, ask: asking }) });
  };

  /** The answers a retry carried, one per gated call (anything but an accepted `approve: true` denies). */
  const answered = (requests: readonly ToolApprovalRequestUpdate[], ctx: ServerContext): ApprovalResponse[] =>
    requests.map((request, i) => {
      const content = sdk.acceptedContent(ctx.mcpReq.inputResponses, `approve_${i}`);
      const approved = content?.approve === true;
      const reason = typeof content?.reason === 'string' ? content.reason : undefined;
      log(`approval ${approved ? 'granted' : 'refused'}: ${describeRequest(request)}`);
      if (approved) return { callId: request.callId, approved: true };
      return {
        callId: request.callId,
        approved: false,
        reason: reason || (content ? 'the user refused' : 'the user declined to answer'),
      };
    });

  server.registerTool(
    name,
    {
      description:
        agent.description ?? `Runs the agent ${agent.name}: give it a task or a question in input.`,
      inputSchema: z.object({
        input: z.string().describe('The message for the agent'),
        session: z
          .string()
          .optional()
          .describe("Continue an earlier conversation: the sessionId of that call's answer"),
      }),
      outputSchema: z.object({ sessionId: z.string(), finishReason: z.string(), text: z.string() }),
    },
    async ({ input, session: sessionId }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      // Verified by the codec before the handler runs: a forged or expired state never gets here.
      const state = ctx.mcpReq.requestState<ApprovalState>();
      const resumed = state?.sessionId;
      const id = resumed ?? sessionId;
      const known = id === undefined ? undefined : sessions.get(id);
      if (id !== undefined && !known)
        return failure(`unknown session '${id}' (sessions live as long as this server)`);
      const session = known ?? agent.createSession();
      if (!sessions.claim(session.id))
        return failure(`session '${session.id}' is still running an earlier call`);
      sessions.add(session);
      const progressToken = ctx.mcpReq._meta?.progressToken;
      let progress = 0;
      const onUpdate = (update: AgentResponseUpdate) => {
        if (progressToken === undefined || update.type !== 'tool-call-end') return;
        void ctx.mcpReq
          .notify({
            method: 'notifications/progress',
            params: { progressToken, progress: ++progress, message: `→ ${update.name}` },
          })
          .catch(() => undefined);
      };
      try {
        if (state) {
          if (!session.pendingApproval || asksOf(sessions).get(state.sessionId) !== state.ask)
            return failure(
              `a stale approval answer: session '${session.id}' does not wait on the approvals it answers (not the approvals it waits on now); call again to be asked`,
            );
          asksOf(sessions).delete(state.sessionId);
        }
        let text = '';
        let message: string | undefined = input;
        let approvals: ApprovalResponse[] | undefined;
        if (session.pendingApproval) {
          const requests = pendingRequests(session.pendingApproval);
          if (resumed) approvals = answered(requests, ctx);
          else {
            // Paused by an earlier call: asked again before anything new.
            const decided = await ask(requests, session.id, ctx);
            if (!Array.isArray(decided)) return decided;
            approvals = decided;
          }
          message = undefined;
        }
        for (let round = 0; round < MAX_APPROVAL_ROUNDS; round++) {
          const outcome = await runTurn(
            agent,
            message,
            { session, signal: ctx.mcpReq.signal, ...(approvals && { approvals }) },
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
          const decided = await ask(outcome.requests, session.id, ctx);
          if (!Array.isArray(decided)) return decided;
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

/** A v2 `McpServer` with the agent's tool; the state codec's key lives as long as the serving process. */
export function newModernServer(
  sdk: ServerSdk,
  agent: ServableAgent,
  sessions: AgentSessions,
  codec: RequestStateCodec<ApprovalState>,
  options: AgentMcpServerOptions,
): McpServer {
  const server = new sdk.McpServer(
    { name: agent.name, version: '0.1.0' },
    { capabilities: { tools: {} }, requestState: { verify: codec.verify } },
  );
  registerModernAgentTool(sdk, server, agent, sessions, codec, options);
  return server;
}
