import type { AgentCard } from '@a2a-js/sdk';

export interface AgentCardOptions {
  name: string;
  description?: string;
  /** The JSON-RPC endpoint clients post to (absolute). */
  url: string;
  version?: string;
  /** Advertise a bearer token requirement (what `raf serve --tokens` checks). */
  bearer?: boolean;
  /** Also declare the endpoint for A2A 0.3 clients (`answerA2AJsonRpc`'s `legacyCompat`). */
  legacyCompat?: boolean;
}

/**
 * An A2A 1.0 agent card for a RAF agent: one JSON-RPC interface, streaming, text in and out, one
 * skill (the agent itself). The card names the endpoint, so a client that read it needs nothing else.
 */
export function agentCardFor(options: AgentCardOptions): AgentCard {
  const description = options.description ?? `RAF agent ${options.name}`;
  return {
    name: options.name,
    description,
    supportedInterfaces: [
      { url: options.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      ...(options.legacyCompat
        ? [{ url: options.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }]
        : []),
    ],
    provider: undefined,
    version: options.version ?? '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: options.bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: 'raf serve token', scheme: 'Bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: options.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: options.name,
        name: options.name,
        description,
        tags: ['raf'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
