import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '@a2a-js/sdk';
import { type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { agentCardFor } from '../server/agent-card.js';

export interface SdkA2AServer {
  url: string;
  /** The `Authorization` header of every JSON-RPC request, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A real A2A 1.0 server made only of `@a2a-js/sdk`'s parts (its request handler, task store and
 * Express adapters) on 127.0.0.1, running `executor`. `card` may rewrite the card it serves.
 */
export async function startSdkA2AServer(
  executor: AgentExecutor,
  card: (url: string) => AgentCard = (url) => agentCardFor({ name: 'remote', url }),
): Promise<SdkA2AServer> {
  const authorizations: (string | undefined)[] = [];
  // Listen first: the card names the endpoint, so it needs the port.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const served = card(`${url}/a2a/jsonrpc`);
  const handler = new DefaultRequestHandler(served, new InMemoryTaskStore(), executor);
  const app = express();
  app.use('/a2a/jsonrpc', (req, _res, next) => {
    authorizations.push(req.headers.authorization);
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => served }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  server.on('request', app);
  return {
    url,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
