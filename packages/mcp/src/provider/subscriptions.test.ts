import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import {
  eventLog,
  type HttpServerProcess,
  readEvents,
  startHttpTestServer,
  stdioTestServer,
} from '../test-support/servers.js';

const agents: TestAgent[] = [];
let server: HttpServerProcess | undefined;
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
  await server?.stop();
  server = undefined;
});

const bump = { toolCalls: [{ id: 'c1', name: 'bump', arguments: {} }] };
/** What the model was sent on its n-th request (its instructions included). */
const request = (test: TestAgent, n: number) => JSON.stringify(test.client.calls[n]);

describe('resource subscriptions: a context follows a changing resource', { timeout: 60_000 }, () => {
  for (const transport of ['stdio', 'http'] as const)
    it(`the change reaches the next model request (${transport})`, async () => {
      const events = eventLog();
      let config: Record<string, unknown> = stdioTestServer({ TEST_SERVER_LOG: events });
      if (transport === 'http') {
        server = await startHttpTestServer({ env: { TEST_SERVER_LOG: events } });
        config = { url: server.url };
      }
      const test = await buildTestAgent(
        {
          contexts: [{ kind: 'mcp', name: 'counter', config: { ...config, subscribe: ['test://counter'] } }],
        },
        [bump, { text: 'bumped' }, { text: 'seen' }],
      );
      agents.push(test);
      await collect(test.agent, 'bump it');
      expect(request(test, 0)).toContain(
        'The resource test://counter of the MCP server \\"counter\\", as it is now:\\ncount: 0',
      );
      expect(readEvents(events).filter((e) => e.event === 'subscribed')).toHaveLength(1);
      await collect(test.agent, 'and now?');
      expect(request(test, 2)).toContain('count: 1');
      expect(request(test, 2)).not.toContain('count: 0');
    });
});
