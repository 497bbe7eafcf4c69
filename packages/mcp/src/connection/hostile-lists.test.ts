import { describe, expect, it } from 'vitest';
import { buildTestAgent, testBuilder } from '../test-support/agents.js';
import { eventLog, readEvents, stdioTestServer } from '../test-support/servers.js';

// A hostile server's tools/list that the SDK's schema refuses failed the build with the zod issues
// as pretty-printed JSON (forty lines in the terminal), after three identical tries.
describe('a server whose answer does not fit the MCP schema', { timeout: 60_000 }, () => {
  it('fails the build once, with the issues on one line', async () => {
    const events = eventLog();
    const { builder, plugin } = testBuilder({
      tools: [
        {
          kind: 'mcp',
          name: 'srv',
          config: stdioTestServer({ TEST_SERVER_BAD_TOOL_LIST: '1', TEST_SERVER_LOG: events }),
        },
      ],
    });
    try {
      const error = await builder.build().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(
        /cannot start MCP server 'srv' .* after 1 try: its answer does not fit the MCP schema: tools\[1\]\.inputSchema: /,
      );
      expect(error?.message).not.toContain('\n');
      expect(readEvents(events).filter((e) => e.event === 'tools/list')).toHaveLength(1);
    } finally {
      await plugin.close();
    }
  });
});

// A server that answered tools/list with empty pages and a next cursor, forever, hung the build.
describe('a server that pages its tool list forever', { timeout: 60_000 }, () => {
  for (const kind of ['circle', 'fresh']) {
    it(`is read to a bound (${kind} cursors): the build ends with the tools it got`, async () => {
      const events = eventLog();
      const test = await buildTestAgent({
        tools: [
          {
            kind: 'mcp',
            name: 'srv',
            config: stdioTestServer({ TEST_SERVER_ENDLESS_PAGES: kind, TEST_SERVER_LOG: events }),
          },
        ],
      });
      try {
        expect(test.agent.tools.map((t) => t.name)).toEqual(['echo']);
        const pages = readEvents(events).filter((e) => e.event === 'tools/list').length;
        expect(pages).toBeLessThanOrEqual(kind === 'circle' ? 2 : 1000);
      } finally {
        await test.plugin.close();
      }
    });
  }
});

describe('a stdio server that writes one line over 10 MiB before its handshake', { timeout: 60_000 }, () => {
  it('fails the build saying so, not that the server exited', async () => {
    const { builder, plugin } = testBuilder({
      tools: [
        {
          kind: 'mcp',
          name: 'srv',
          config: {
            ...stdioTestServer({ TEST_SERVER_STDOUT_BYTES: String(11 * 1024 * 1024) }),
            reconnect_attempts: 1,
          },
        },
      ],
    });
    try {
      await expect(builder.build()).rejects.toThrow(
        /cannot start MCP server 'srv' .*: the server sent a message over 10 MiB during the handshake/,
      );
    } finally {
      await plugin.close();
    }
  });
});
