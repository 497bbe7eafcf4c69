import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { getErrorMessage } from '@raf/core';
import type { SdkClient } from './sdk.js';

// The 2026-07-28 revision (stateless, `server/discover`, multi-round-trip requests) is spoken by
// the SDK v2 only. A server that refuses the 2025 handshake with -32022 (unsupported protocol
// version) is reached through it: the v2 client negotiates (`versionNegotiation: auto`) and is
// used through the same methods as the 1.x client. Loaded only when such a server is met.

type ModernModule = typeof import('@modelcontextprotocol/client');
type ModernClient = InstanceType<ModernModule['Client']>;

/** What the connection does with what the server sends (the same for both SDKs). */
export interface ClientEvents {
  elicit(params: ElicitRequest['params']): Promise<ElicitResult>;
  toolsChanged(): void;
  contentChanged(): void;
  resourceUpdated(uri: string): void;
  error(error: unknown): void;
  closed(): void;
}

/** The 2025 handshake was refused as another protocol revision (`-32022`, HTTP 400). */
export function unsupportedRevision(error: unknown): boolean {
  return /-32022|unsupported protocol version/i.test(getErrorMessage(error));
}

/** The client's capabilities, for both SDKs: questions reach the user of the running call. */
export const CLIENT_CAPABILITIES = { elicitation: { form: {}, url: {} } } as const;

let modern: Promise<ModernModule> | undefined;

/**
 * Connects to a streamable HTTP server with the SDK v2's client. The returned object has the
 * 1.x client's methods the connection uses (`listTools`, `readResource`, `getServerCapabilities`,
 * …); `callTool` takes its options second here (see `callModern`).
 */
export async function openModernClient(
  url: URL,
  options: {
    clientInfo: { name: string; version: string };
    headers: Record<string, string>;
    authProvider: OAuthClientProvider | undefined;
    timeoutMs: number;
    events: (client: object) => ClientEvents;
  },
): Promise<SdkClient> {
  modern ??= import('@modelcontextprotocol/client');
  const sdk = await modern;
  const client = new sdk.Client(options.clientInfo, {
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: { mode: 'auto' },
  });
  const events = options.events(client);
  client.setRequestHandler(
    'elicitation/create',
    (request) => events.elicit(request.params as ElicitRequest['params']) as never,
  );
  client.setNotificationHandler('notifications/tools/list_changed', () => events.toolsChanged());
  client.setNotificationHandler('notifications/resources/list_changed', () => events.contentChanged());
  client.setNotificationHandler('notifications/prompts/list_changed', () => events.contentChanged());
  client.setNotificationHandler('notifications/resources/updated', (notification) =>
    events.resourceUpdated(notification.params.uri),
  );
  client.onerror = (error) => events.error(error);
  client.onclose = () => events.closed();
  const transport = new sdk.StreamableHTTPClientTransport(url, {
    requestInit: { headers: options.headers },
    ...(options.authProvider && { authProvider: options.authProvider as never }),
  });
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  // The two clients share the methods the connection calls; the SDKs' types differ in detail.
  return client as unknown as SdkClient;
}

/** `tools/call` on a v2 client: its options are the second argument (the 1.x client's third). */
export function callModern(
  client: SdkClient,
  params: { name: string; arguments: Record<string, unknown> },
  options: object,
): Promise<unknown> {
  return (client as unknown as ModernClient).callTool(params, options as never);
}
