import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, context, type TestAgent, testBuilder, toolNamed } from '../test-support/agents.js';
import {
  eventLog,
  eventually,
  type HttpServerProcess,
  readEvents,
  startHttpTestServer,
  stdioTestServer,
} from '../test-support/servers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function agentWith(
  config: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<TestAgent> {
  const test = await buildTestAgent({ tools: [{ kind: 'mcp', name: 'test', config, ...extra }] });
  cleanups.push(() => test.plugin.close());
  return test;
}

async function http(options: Parameters<typeof startHttpTestServer>[0] = {}): Promise<HttpServerProcess> {
  const server = await startHttpTestServer(options);
  cleanups.push(() => server.stop());
  return server;
}

const call = async (test: TestAgent, name: string, args: Record<string, unknown> = {}) =>
  toolNamed(test.agent.tools, name).execute(args, context());

const pidOf = async (test: TestAgent) =>
  JSON.parse((await call(test, 'whoami')).data as string).pid as number;

// Real server processes on a shared machine: generous time.
describe('a stdio server that exits', { timeout: 60_000 }, () => {
  it('fails the call in flight with a clear error, and the next call restarts it', async () => {
    const test = await agentWith(stdioTestServer());
    const before = await pidOf(test);
    expect(await call(test, 'crash')).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^MCP server 'test' closed the connection during crash \(it exited or crashed\); whether the call took effect is unknown; the next call restarts it/,
      ),
    });
    expect(await call(test, 'echo', { text: 'back' })).toEqual({ ok: true, data: 'back' });
    expect(await pidOf(test)).not.toBe(before);
  });

  it('killed from outside between calls: the next call starts it again', async () => {
    const test = await agentWith(stdioTestServer());
    const connection = (
      toolNamed(test.agent.tools, 'echo') as unknown as {
        connection: { processId?: number; connected: boolean };
      }
    ).connection;
    const pid = await pidOf(test);
    expect(connection.processId).toBe(pid);
    process.kill(pid, 'SIGKILL');
    await eventually(() => !connection.connected, 10_000, 'the connection to notice the exit');
    expect(await call(test, 'echo', { text: 'again' })).toEqual({ ok: true, data: 'again' });
    expect(await pidOf(test)).not.toBe(pid);
  });

  it('stops with the agent: close() ends the process', async () => {
    const test = await agentWith(stdioTestServer());
    const pid = await pidOf(test);
    await test.plugin.close();
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await eventually(() => !alive(), 10_000, 'the server process to end');
    expect(await call(test, 'echo', { text: 'x' })).toEqual({
      ok: false,
      error: "MCP server 'test' was closed",
    });
  });

  it('passes env to the server and never shows its values in errors', async () => {
    const events = eventLog();
    const test = await agentWith(
      stdioTestServer({ TEST_SERVER_SECRET: 'opensesame', TEST_SERVER_LOG: events }),
    );
    expect(JSON.parse((await call(test, 'whoami')).data as string).secret).toBe('opensesame');

    const secret = 'sk-live-0123456789';
    const { builder, plugin } = testBuilder({
      tools: [
        {
          kind: 'mcp',
          name: 'leaky',
          config: {
            command: process.execPath,
            args: ['-e', 'console.error("starting with token " + process.env.TOKEN); process.exit(1)'],
            env: { TOKEN: secret },
            reconnect_attempts: 1,
          },
        },
      ],
    });
    cleanups.push(() => plugin.close());
    const report = await builder.validate();
    expect(report.ok).toBe(false);
    const message = report.errors.map((e) => e.message).join('\n');
    expect(message).toMatch(
      /cannot start MCP server 'leaky' \(stdio: node\) after 1 try: .*its stderr ended with: starting with token \*\*\*/,
    );
    expect(message).not.toContain(secret);
  });
});

describe('an HTTP server that restarts', { timeout: 60_000 }, () => {
  it('the expired session is replaced: the next call succeeds on a new session', async () => {
    const events = eventLog();
    const first = await http({ env: { TEST_SERVER_LOG: events } });
    const test = await agentWith({ url: first.url });
    const before = await pidOf(test);
    await first.stop();
    // Down: bounded tries, then a clear error that names the server.
    expect(await call(test, 'echo', { text: 'x' })).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^MCP server 'test' \(streamable-http: http:\/\/127\.0\.0\.1:\d+\/mcp\) failed during echo/,
      ),
    });
    await http({ port: first.port, env: { TEST_SERVER_LOG: events } });
    expect(await call(test, 'echo', { text: 'back' })).toEqual({ ok: true, data: 'back' });
    expect(await pidOf(test)).not.toBe(before);
    expect(readEvents(events).filter((e) => e.event === 'session')).toHaveLength(2);
  });

  it('a session the server forgot (404) is renewed transparently, the call is sent again once', async () => {
    const events = eventLog();
    const first = await http({ env: { TEST_SERVER_LOG: events } });
    const test = await agentWith({ url: first.url });
    await pidOf(test);
    // Restart without an error in between: the client still holds the old session id.
    await first.stop();
    await http({ port: first.port, env: { TEST_SERVER_LOG: events } });
    expect(await call(test, 'record', { value: 'once' })).toEqual({ ok: true, data: 'recorded once' });
    expect(readEvents(events).filter((e) => e.event === 'call')).toHaveLength(1);
  });

  it('takes the upstream form: one tool per entry, server_url beside config, tool_name ?? name', async () => {
    const server = await http();
    const test = await buildTestAgent({
      tools: [
        { kind: 'mcp', name: 'say', server_url: server.url, tool_name: 'echo' },
        { kind: 'mcp', name: 'whoami', server_url: server.url },
      ],
    });
    cleanups.push(() => test.plugin.close());
    expect(test.agent.tools.map((t) => [t.name, (t as unknown as { server: string }).server])).toEqual([
      ['say', '127.0.0.1'],
      ['whoami', '127.0.0.1'],
    ]);
    expect(await call(test, 'say', { text: 'upstream' })).toEqual({ ok: true, data: 'upstream' });
    // Both entries name the same server: one connection, one MCP session.
    const connections = new Set(
      test.agent.tools.map((t) => (t as unknown as { connection: unknown }).connection),
    );
    expect(connections.size).toBe(1);
  });

  it('sends the configured headers', async () => {
    const server = await http();
    const test = await agentWith({ url: server.url, headers: { Authorization: 'Bearer t0ken' } });
    expect(JSON.parse((await call(test, 'whoami')).data as string).authorization).toBe('Bearer t0ken');
  });

  it('falls back to the old HTTP+SSE transport for servers that predate streamable HTTP', async () => {
    const events = eventLog();
    const server = await http({ transport: 'sse', env: { TEST_SERVER_LOG: events } });
    const test = await agentWith({ url: server.url });
    expect(await call(test, 'echo', { text: 'over sse' })).toEqual({ ok: true, data: 'over sse' });
    expect(readEvents(events).map((e) => e.transport)).toContain('sse');
  });
});

describe('calls', { timeout: 60_000 }, () => {
  it('a cancelled call sends notifications/cancelled to the server', async () => {
    const events = eventLog();
    const test = await agentWith(stdioTestServer({ TEST_SERVER_LOG: events }));
    const controller = new AbortController();
    const pending = toolNamed(test.agent.tools, 'slow').execute({ ms: 30_000 }, context(controller.signal));
    await eventually(
      () => readEvents(events).some((e) => e.event === 'call'),
      10_000,
      'the call to reach the server',
    );
    controller.abort();
    await expect(pending).rejects.toThrow(/cancelled/i);
    await eventually(
      () => readEvents(events).some((e) => e.event === 'cancelled'),
      10_000,
      'the cancellation',
    );
  });

  it('a call that outlives timeoutSecs fails with a clear error and is cancelled on the server', async () => {
    const events = eventLog();
    const test = await agentWith(stdioTestServer({ TEST_SERVER_LOG: events }), { timeoutSecs: 0.5 });
    expect(await call(test, 'slow', { ms: 20_000 })).toEqual({
      ok: false,
      error: "MCP server 'test' did not answer slow within 0.5 s (the call was cancelled)",
    });
    await eventually(
      () => readEvents(events).some((e) => e.event === 'cancelled'),
      10_000,
      'the cancellation',
    );
    expect(await call(test, 'echo', { text: 'fine' })).toEqual({ ok: true, data: 'fine' });
  });
});
