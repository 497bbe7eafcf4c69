import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  RequestStateCodec,
  ServerContext,
} from '@modelcontextprotocol/server';
import { type ApprovalResponse, getErrorMessage, type ToolApprovalRequestUpdate } from '@raf/core';
import * as z from 'zod';
import type { RunRegistry } from '../runs/run-registry.js';
import type { ServedAgent } from '../runs/served-agents.js';
import type { ServedRun } from '../runs/served-run.js';

type ServerSdk = typeof import('@modelcontextprotocol/server');

/** A paused call's state, sealed with this process's key (the client's retry carries it back). */
interface PausedCall {
  runId: string;
  tenant: string;
  /** The last event of the run the call has read: the retry reads on after it. */
  after: number;
  text: string;
  /** The gated calls in the order of the forms (`approve_<i>`). */
  callIds: string[];
}

export const MCP_MAX_APPROVAL_ROUNDS = 20;
/** A tool result both SDKs' `CallToolResult` types accept (each revision has its own). */
// A type, not an interface: only a type literal is assignable to the SDKs' index-signature types.
export type PlainToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

export const mcpFailure = (text: string): PlainToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});
export const mcpToolName = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) || 'agent';
const described = (r: ToolApprovalRequestUpdate) =>
  `${r.name} ${r.resolvedTarget ?? JSON.stringify(r.arguments)}`.slice(0, 500);

const approveForm = (name: string) => ({
  type: 'object' as const,
  properties: {
    approve: { type: 'boolean' as const, title: 'Approve', description: `Run ${name}` },
    reason: { type: 'string' as const, title: 'Reason', description: 'Why not (shown to the agent)' },
  },
  required: ['approve'],
});

/** Whether the client answers elicitations: declared per request on 2026-07-28. */
function canBeAsked(sdk: ServerSdk, server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[sdk.CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  return Boolean(declared?.elicitation ?? server.server.getClientCapabilities()?.elicitation);
}

/**
 * One served agent as one tool for the 2026-07-28 revision: the same tool, schema and answers as
 * the 1.x path, on the registry's runs of the caller's tenant. A run paused for approval answers
 * `input_required` (one form per gated call, a sealed state naming the run); the client's retry
 * carries the answers and the run resumes there, the call reading on after its last event.
 */
function registerModernServedAgent(
  sdk: ServerSdk,
  server: McpServer,
  codec: RequestStateCodec<PausedCall>,
  registry: RunRegistry,
  agent: ServedAgent,
  tenant: string,
  mode: 'ask' | 'approve' | 'deny',
): void {
  server.registerTool(
    mcpToolName(agent.name),
    {
      description:
        agent.description ?? `Runs the agent ${agent.name}: give it a task or a question in input.`,
      inputSchema: z.object({
        input: z.string().min(1).describe('The message for the agent'),
        session: z
          .string()
          .optional()
          .describe("Continue an earlier conversation: the sessionId of that call's answer"),
      }),
      outputSchema: z.object({
        sessionId: z.string(),
        finishReason: z.string(),
        text: z.string(),
        runId: z.string(),
      }),
    },
    async ({ input, session }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      try {
        // Verified by the codec before the handler runs: a forged or expired state never gets here.
        const paused = ctx.mcpReq.requestState<PausedCall>();
        let run: ServedRun;
        // What the call has read: none of the run yet, or up to the pause a retry answers.
        const acc = { after: 0, text: '', progress: 0 };
        if (paused) {
          // Another tenant's sealed state names a run it cannot see: told it does not exist.
          if (paused.tenant !== tenant) return mcpFailure(`unknown run ${paused.runId}`);
          // The pause it was minted at, and no later one: the model picks call ids, so a later
          // batch may reuse them, and a replayed state would approve what nobody was shown.
          const now = await (await registry.require(paused.runId, tenant)).record();
          if (now.status !== 'paused' || now.lastSeq !== paused.after)
            return mcpFailure(
              `a stale approval answer: run ${paused.runId} does not wait on the approvals it answers; call again to be asked`,
            );
          const approvals: ApprovalResponse[] = paused.callIds.map((callId, i) => {
            const content = sdk.acceptedContent(ctx.mcpReq.inputResponses, `approve_${i}`);
            if (content?.approve === true) return { callId, approved: true };
            const reason = typeof content?.reason === 'string' && content.reason ? content.reason : undefined;
            return {
              callId,
              approved: false,
              reason: reason ?? (content ? 'the user refused' : 'the user declined to answer'),
            };
          });
          run = await registry.approve(paused.runId, tenant, approvals);
          acc.after = paused.after;
          acc.text = paused.text;
        } else
          run = await registry.start(agent.name, {
            input,
            tenant,
            ...(session !== undefined && { sessionId: session }),
          });
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (let round = 0; round < MCP_MAX_APPROVAL_ROUNDS; round++) {
          const read = await readCallRound(run, acc, progressToken, (n) => ctx.mcpReq.notify(n));
          if ('result' in read) return read.result;
          const { requests } = read;
          if (mode === 'ask') {
            if (!canBeAsked(sdk, server, ctx))
              return mcpFailure(
                `approval needed: the agent wants to run ${requests.map(described).join('; ')}. This MCP client cannot be asked (it does not support elicitation); the run is paused (run ${run.runId}: answer it with POST /v1/runs/${run.runId}/approvals)`,
              );
            const inputRequests = Object.fromEntries(
              requests.map((request, i) => [
                `approve_${i}`,
                sdk.inputRequired.elicit({
                  mode: 'form',
                  message: `The agent ${agent.name} wants to run ${described(request)}. Approve?`,
                  requestedSchema: approveForm(request.name),
                }),
              ]),
            );
            const state: PausedCall = {
              runId: run.runId,
              tenant,
              after: acc.after,
              text: acc.text,
              callIds: requests.map((r) => r.callId),
            };
            return sdk.inputRequired({ inputRequests, requestState: await codec.mint(state) });
          }
          run = await registry.approve(
            run.runId,
            tenant,
            requests.map((r) =>
              mode === 'approve'
                ? { callId: r.callId, approved: true }
                : { callId: r.callId, approved: false, reason: 'Denied by the server settings' },
            ),
          );
        }
        return mcpFailure(
          `the agent asked for approval more than ${MCP_MAX_APPROVAL_ROUNDS} times in one call`,
        );
      } catch (error) {
        return mcpFailure(`the agent failed: ${getErrorMessage(error)}`);
      }
    },
  );
}

/** A progress notification, as either revision's sender takes it. */
export interface ProgressNotice {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message: string };
}

/**
 * One round of a served MCP call on either revision: reads the run on from `acc.after` (a progress
 * notice per tool call when the caller gave a token) and gives the call's answer once the run
 * stopped, or the approvals it waits on; `acc` holds what was read so far.
 */
export async function readCallRound(
  run: ServedRun,
  acc: { after: number; text: string; progress: number },
  progressToken: string | number | undefined,
  notify: (notice: ProgressNotice) => Promise<unknown>,
): Promise<{ result: PlainToolResult } | { requests: ToolApprovalRequestUpdate[] }> {
  const read = await readServedRun(run, acc.after, (name) => {
    if (progressToken === undefined) return;
    const params = { progressToken, progress: ++acc.progress, message: `→ ${name}` };
    void notify({ method: 'notifications/progress', params }).catch(() => undefined);
  });
  acc.after = read.after;
  acc.text += read.text;
  if (read.error) return { result: mcpFailure(`the agent failed: ${read.error}`) };
  if (read.finish === 'awaitingApproval') return { requests: read.requests };
  const answer = { sessionId: run.sessionId, finishReason: read.finish, text: acc.text, runId: run.runId };
  return {
    result: {
      content: [{ type: 'text', text: acc.text || `(finished: ${read.finish})` }],
      structuredContent: answer,
    },
  };
}

/**
 * The run's events after `after` until it stops (paused, finished, failed, cancelled), as one MCP
 * call reads them on either revision: its text, how it stopped, the approvals it waits on.
 */
export async function readServedRun(run: ServedRun, after: number, onToolCall: (name: string) => void) {
  let text = '';
  let finish = 'other';
  let error: string | undefined;
  const requests: ToolApprovalRequestUpdate[] = [];
  for await (const { seq, event } of run.events({ after })) {
    after = seq;
    if (event.type === 'text-delta') text += event.delta;
    else if (event.type === 'tool-approval-request') requests.push(event);
    else if (event.type === 'error') error = event.message;
    else if (event.type === 'finish') finish = event.reason;
    else if (event.type === 'tool-call') onToolCall(event.name);
  }
  return { after, text, finish, error, requests };
}

/** A node request, its body already read and parsed, as the web `Request` the SDK v2 takes. */
function webRequest(req: IncomingMessage, body: unknown, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/mcp'}`, {
    method,
    headers,
    signal,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/**
 * The 2026-07-28 side of `/mcp` (sessionless, one request each): the SDK v2's handler, one per
 * tenant so every tool runs as the token's tenant. The state key is this process's: a paused
 * call's retry must reach the same replica (another one refuses the state as invalid).
 */
export async function modernMcp(
  registry: RunRegistry,
  mode: 'ask' | 'approve' | 'deny',
  maxBodyBytes: number,
) {
  const sdk = await import('@modelcontextprotocol/server');
  const codec = sdk.createRequestStateCodec<PausedCall>({ key: randomBytes(32), ttlSeconds: 600 });
  const handlers = new Map<string, ReturnType<ServerSdk['createMcpHandler']>>();
  const handlerOf = (tenant: string) => {
    let handler = handlers.get(tenant);
    if (!handler) {
      handler = sdk.createMcpHandler(
        () => {
          const server = new sdk.McpServer(
            { name: 'raf-serve', version: '0.1.0' },
            { capabilities: { tools: {} }, requestState: { verify: codec.verify } },
          );
          for (const agent of registry.agents.list())
            registerModernServedAgent(sdk, server, codec, registry, agent, tenant, mode);
          return server;
        },
        { legacy: 'reject', maxRequestBodySize: maxBodyBytes },
      );
      handlers.set(tenant, handler);
    }
    return handler;
  };
  return {
    /** Answers a 2026-07-28 request and says true; false for a 2025 one (the caller's 1.x path). */
    async handle(
      req: IncomingMessage,
      res: ServerResponse,
      body: unknown,
      tenant: string,
      signal: AbortSignal,
    ): Promise<boolean> {
      const request = webRequest(req, body, signal);
      if (await sdk.isLegacyRequest(request, body, { maxRequestBodySize: maxBodyBytes })) return false;
      const response = await handlerOf(tenant).fetch(request, { parsedBody: body });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
      return true;
    },
    async close(): Promise<void> {
      await Promise.all([...handlers.values()].map((h) => h.close().catch(() => undefined)));
    },
  };
}
