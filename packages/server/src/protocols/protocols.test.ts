import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { stateName, textOfParts } from '@raf/a2a';
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Fixture,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
  TOKEN_B,
  until,
} from '../test-support/served-fixture.js';

// Real clients against a real server on 127.0.0.1, each running the gated `deployer` (one tool
// round of `deploy`, which needs approval) on the mock model server to the end.
let fixture: Fixture;
let served: Served;
beforeAll(async () => {
  fixture = await startFixture();
  // createServer mounts the protocols beside the /v1 API.
  served = await serve(fixture);
});
afterAll(async () => {
  await served?.close();
  await fixture?.close();
});

/** `useChat` without React: the AI SDK's own chat over a plain state. */
class MemoryState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}
class Chat extends AbstractChat<UIMessage> {
  constructor(api: string, token: string) {
    super({
      state: new MemoryState(),
      transport: new DefaultChatTransport({ api, headers: { authorization: `Bearer ${token}` } }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }
}

const api = (path: string, token = TOKEN_A, init: RequestInit = {}) =>
  fetch(`${served.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

describe('the AI SDK UI message stream (useChat) at POST /v1/agents/{name}/chat', () => {
  it("runs the tool-using agent to the end through the SDK's chat, with an approval", async () => {
    fixture.calls.length = 0;
    const chat = new Chat(`${served.url}/v1/agents/deployer/chat`, TOKEN_A);
    await chat.sendMessage({ text: 'deploy it' });
    expect(chat.error).toBeUndefined();
    const asked = chat.messages.at(-1)!;
    expect(asked.role).toBe('assistant');
    const tool = asked.parts.find((p) => p.type === 'dynamic-tool');
    expect(tool).toMatchObject({
      toolName: 'deploy',
      state: 'approval-requested',
      input: { text: 'round 0' },
    });
    expect(fixture.calls).toEqual([]);
    const { runId, sessionId } = asked.metadata as { runId: string; sessionId: string };
    expect(sessionId).toBe(chat.id);

    await chat.addToolApprovalResponse({
      id: (tool as { approval: { id: string } }).approval.id,
      approved: true,
    });
    await until(
      () => chat.status === 'ready' && chat.messages.at(-1)!.parts.some((p) => p.type === 'text'),
      'the answer',
    );
    const answered = chat.messages.at(-1)!;
    expect(chat.messages).toHaveLength(2);
    expect(answered.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({
      state: 'output-available',
      output: 'deployed round 0',
    });
    expect(answered.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual([
      'deployed it',
    ]);
    expect(fixture.calls).toEqual(['deploy:round 0']);
    // The same run, seen through the /v1 API; another tenant cannot see it.
    expect(await (await api(`/v1/runs/${runId}`)).json()).toMatchObject({ status: 'finished', sessionId });
    expect((await api(`/v1/runs/${runId}`, TOKEN_B)).status).toBe(404);
  }, 60_000);

  it("refuses another tenant's run in an approval answer, and a request without a token", async () => {
    const chat = new Chat(`${served.url}/v1/agents/deployer/chat`, TOKEN_A);
    await chat.sendMessage({ text: 'deploy it' });
    const asked = chat.messages.at(-1)!;
    const forged = { id: 'x', messages: [asked] };
    const answer = (token: string) =>
      api('/v1/agents/deployer/chat', token, {
        method: 'POST',
        body: JSON.stringify({
          ...forged,
          messages: [
            {
              ...asked,
              parts: asked.parts.map((p) =>
                p.type === 'dynamic-tool'
                  ? { ...p, state: 'approval-responded', approval: { id: p.toolCallId, approved: true } }
                  : p,
              ),
            },
          ],
        }),
      });
    expect((await answer(TOKEN_B)).status).toBe(404);
    expect((await fetch(`${served.url}/v1/agents/deployer/chat`, { method: 'POST' })).status).toBe(401);
  }, 60_000);
});

describe('AG-UI at POST /v1/agents/{name}/ag-ui', () => {
  it("runs the tool-using agent to the end through @ag-ui/client's HttpAgent, the approval as an interrupt", async () => {
    fixture.calls.length = 0;
    const agent = new HttpAgent({
      url: `${served.url}/v1/agents/deployer/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN_A}` },
      threadId: 'thread-1',
      initialMessages: [{ id: 'u1', role: 'user', content: 'deploy it' }],
    });
    const events: BaseEvent[] = [];
    const subscriber = { onEvent: ({ event }: { event: BaseEvent }) => void events.push(event) };
    await agent.runAgent({ runId: 'run-1' }, subscriber);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types).toEqual(expect.arrayContaining(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END']));
    const finished = events.at(-1) as BaseEvent & {
      outcome?: { type: string; interrupts?: { id: string; toolCallId: string; reason: string }[] };
    };
    expect(finished.type).toBe('RUN_FINISHED');
    expect(finished.outcome?.type).toBe('interrupt');
    const [interrupt] = finished.outcome!.interrupts!;
    expect(interrupt).toMatchObject({ reason: 'tool_approval' });
    expect(fixture.calls).toEqual([]);

    events.length = 0;
    await agent.runAgent(
      {
        runId: 'run-2',
        resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }],
      },
      subscriber,
    );
    expect(events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1])).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect((events.at(-1) as { outcome?: { type: string } }).outcome?.type).toBe('success');
    expect(fixture.calls).toEqual(['deploy:round 0']);
    const text = agent.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => m.content)
      .join('');
    expect(text).toContain('deployed it');
  }, 60_000);
});

describe('A2A 1.0 at /a2a/{name}', () => {
  it("runs the tool-using agent to the end through @a2a-js/sdk's client, the approval as input-required", async () => {
    fixture.calls.length = 0;
    const cardRes = await fetch(`${served.url}/a2a/deployer/.well-known/agent-card.json`);
    expect(cardRes.status).toBe(200);
    const withToken: typeof fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${TOKEN_A}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
    });
    const client = await factory.createFromUrl(`${served.url}/a2a/deployer/`);
    const message = (parts: object[], taskId = '', contextId = '') => ({
      tenant: '',
      message: {
        messageId: crypto.randomUUID(),
        contextId,
        taskId,
        role: 1,
        parts: parts as never,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    const statuses = async (stream: AsyncIterable<{ payload?: { $case: string; value: unknown } }>) => {
      const seen: { taskId: string; contextId: string; state: string; text: string; data: unknown[] }[] = [];
      let text = '';
      for await (const event of stream) {
        if (event.payload?.$case === 'artifactUpdate')
          text += textOfParts((event.payload.value as { artifact: { parts: never[] } }).artifact.parts);
        if (event.payload?.$case === 'statusUpdate') {
          const value = event.payload.value as {
            taskId: string;
            contextId: string;
            status: { state: number; message?: { parts: { content?: { $case: string; value: unknown } }[] } };
          };
          seen.push({
            taskId: value.taskId,
            contextId: value.contextId,
            state: stateName(value.status.state),
            text,
            data: (value.status.message?.parts ?? []).flatMap((p) =>
              p.content?.$case === 'data' ? [p.content.value] : [],
            ),
          });
        }
      }
      return seen;
    };
    const text = (value: string) => ({
      content: { $case: 'text', value },
      metadata: undefined,
      filename: '',
      mediaType: '',
    });
    const first = await statuses(client.sendMessageStream(message([text('deploy it')])));
    const paused = first.at(-1)!;
    expect(paused.state).toBe('input-required');
    const requests = (paused.data[0] as { approvalRequests: { callId: string; name: string }[] })
      .approvalRequests;
    expect(requests.map((r) => r.name)).toEqual(['deploy']);
    expect(fixture.calls).toEqual([]);

    const approve = {
      content: { $case: 'data', value: { approvals: [{ callId: requests[0]!.callId, approved: true }] } },
      metadata: undefined,
      filename: '',
      mediaType: '',
    };
    const second = await statuses(
      client.sendMessageStream(message([approve], paused.taskId, paused.contextId)),
    );
    expect(second.at(-1)).toMatchObject({ state: 'completed', text: 'deployed it' });
    expect(fixture.calls).toEqual(['deploy:round 0']);
    const task = await client.getTask({ tenant: '', id: paused.taskId, historyLength: undefined });
    expect(stateName(task.status?.state)).toBe('completed');

    // Another tenant does not see the task.
    const otherFetch: typeof fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${TOKEN_B}`);
      return fetch(input, { ...init, headers });
    };
    const other = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: otherFetch })],
    }).createFromUrl(`${served.url}/a2a/deployer/`);
    await expect(other.getTask({ tenant: '', id: paused.taskId, historyLength: undefined })).rejects.toThrow(
      /not found/i,
    );
  }, 60_000);
});

describe('MCP at /mcp', () => {
  it('runs the tool-using agent to the end through the MCP SDK client, the approval by elicitation', async () => {
    fixture.calls.length = 0;
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const client = new Client(
      { name: 'test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['deployer', 'noter']);
      const result = await client.callTool({ name: 'deployer', arguments: { input: 'deploy it' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ finishReason: 'stop', text: 'deployed it' });
      expect(asked).toEqual([expect.stringContaining('deploy')]);
      expect(fixture.calls).toEqual(['deploy:round 0']);
      const { runId } = result.structuredContent as { runId: string };
      expect(await (await api(`/v1/runs/${runId}`)).json()).toMatchObject({ status: 'finished' });

      // The MCP session is tenant A's: tenant B's token naming it is told it does not exist.
      const stolen = await fetch(`${served.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN_B}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(stolen.status).toBe(404);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('MCP at /mcp on the 2026-07-28 revision', () => {
  /** A v2 client that negotiates (`auto`) and answers the approval forms as told. */
  async function modernClient(token: string, approve: boolean, asked: string[] = []) {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client(
      { name: 'v2-client', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      const content: Record<string, string | boolean> = approve
        ? { approve: true }
        : { approve: false, reason: 'not today' };
      return { action: 'accept' as const, content };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('a v2 client runs the gated agent (approval by input_required) and a v1 client runs it too, one server', async () => {
    fixture.calls.length = 0;
    const asked: string[] = [];
    const modern = await modernClient(TOKEN_A, true, asked);
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await modern.listTools()).tools.map((t) => t.name)).toEqual(['deployer', 'noter']);
      const result = await modern.callTool({ name: 'deployer', arguments: { input: 'deploy it' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ finishReason: 'stop', text: 'deployed it' });
      expect(asked).toEqual([expect.stringContaining('deploy')]);
      expect(fixture.calls).toEqual(['deploy:round 0']);
      // The call is a run of tenant A in the registry: /v1 sees it, tenant B does not.
      const { runId } = result.structuredContent as { runId: string };
      expect(await (await api(`/v1/runs/${runId}`)).json()).toMatchObject({ status: 'finished' });
      expect((await api(`/v1/runs/${runId}`, TOKEN_B)).status).toBe(404);
    } finally {
      await modern.close();
    }
    // The 1.x client on the same /mcp, same token.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const legacy = new Client({ name: 'v1-client', version: '1.0.0' });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
      }),
    );
    try {
      const noted = await legacy.callTool({ name: 'noter', arguments: { input: 'note it' } });
      expect(noted.isError).toBeFalsy();
      expect(noted.structuredContent).toMatchObject({ finishReason: 'stop' });
    } finally {
      await legacy.close();
    }
  }, 60_000);

  it('a refusal reaches the agent; no token is refused; a forged state resumes nothing', async () => {
    fixture.calls.length = 0;
    const modern = await modernClient(TOKEN_B, false);
    try {
      const refused = await modern.callTool({ name: 'deployer', arguments: { input: 'deploy it' } });
      expect(refused.isError).toBeFalsy();
      expect(fixture.calls).toEqual([]);
      const forged = await modern
        .request({
          method: 'tools/call',
          params: {
            name: 'deployer',
            arguments: { input: 'deploy it' },
            requestState: 'forged',
            inputResponses: { approve_0: { action: 'accept', content: { approve: true } } },
          },
        } as never)
        .then(
          () => 'answered',
          (error: Error) => error.message,
        );
      expect(forged).toMatch(/Invalid or expired requestState|invalid_request_state/);
      expect(fixture.calls).toEqual([]);
    } finally {
      await modern.close();
    }
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const intruder = new Client(
      { name: 'v2-client', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await expect(
      intruder.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`))),
    ).rejects.toThrow(/401|token|Unauthorized/i);
  }, 60_000);
});

describe('A2A JSON-RPC without an SDK (what curl sends)', () => {
  const rpc = (body: object, headers: Record<string, string> = {}) =>
    api('/a2a/noter', TOKEN_A, { method: 'POST', body: JSON.stringify(body), headers });
  it('answers SendMessage (1.0) and message/send (0.3) with a task run to the end', async () => {
    const v1 = await rpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'note it' }] } },
      },
      { 'A2A-Version': '1.0' },
    );
    type Artifacts = { artifacts?: { parts: { text?: string }[] }[] };
    const answer = (task: Artifacts | undefined) =>
      (task?.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
    const one = (await v1.json()) as {
      result?: { task?: Artifacts & { status?: { state?: string } } };
      error?: unknown;
    };
    expect(one.error).toBeUndefined();
    expect(one.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(answer(one.result?.task)).toBe('all done');
    const legacy = await rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm2',
          role: 'user',
          parts: [{ kind: 'text', text: 'note it' }],
        },
      },
    });
    const two = (await legacy.json()) as { result?: Artifacts & { kind?: string }; error?: unknown };
    expect(two.error).toBeUndefined();
    expect(two.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(answer(two.result)).toBe('all done');
  }, 60_000);

  it('sends no response to a notification (no id): 204 with an empty body; a request with id null is answered', async () => {
    const message = { messageId: 'n1', role: 'ROLE_USER', parts: [{ text: 'note it' }] };
    const legacyMessage = {
      kind: 'message',
      messageId: 'n2',
      role: 'user',
      parts: [{ kind: 'text', text: 'note it' }],
    };
    const notifications: [object, Record<string, string>][] = [
      [{ jsonrpc: '2.0', method: 'SendMessage', params: { message } }, { 'A2A-Version': '1.0' }],
      [{ jsonrpc: '2.0', method: 'message/stream', params: { message: legacyMessage } }, {}],
      [{ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'no-such-task' } }, {}],
      [{ jsonrpc: '2.0', method: 'no/such/method' }, {}],
    ];
    for (const [body, headers] of notifications) {
      const res = await rpc(body, headers);
      expect({ body, status: res.status, text: await res.text() }).toEqual({ body, status: 204, text: '' });
    }
    // `id: null` is a request (answered), and what is not a valid request is answered too.
    const nullId = (await (
      await rpc({ jsonrpc: '2.0', id: null, method: 'tasks/get', params: { id: 'x' } })
    ).json()) as {
      id: unknown;
      error?: { code: number };
    };
    expect(nullId).toMatchObject({ id: null, error: { code: expect.any(Number) } });
    const invalid = await rpc({ method: 'tasks/get', params: { id: 'x' } });
    expect([invalid.status, ((await invalid.json()) as { error?: { code: number } }).error?.code]).toEqual([
      200, -32600,
    ]);
  }, 60_000);
});
