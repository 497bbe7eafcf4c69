// The SDK (and the zod schemas, ajv and HTTP stack it brings) is loaded when a server is first
// reached, never on import: a CLI or an agent without MCP servers does not pay for it.

export type SdkClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
export type SdkTypesModule = typeof import('@modelcontextprotocol/sdk/types.js');
export type SdkClient = InstanceType<SdkClientModule['Client']>;

export interface Sdk {
  Client: SdkClientModule['Client'];
  types: SdkTypesModule;
}

let sdk: Promise<Sdk> | undefined;

export function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, types]) => ({ Client: client.Client, types }));
  return sdk;
}

export const loadStdioTransport = () => import('@modelcontextprotocol/sdk/client/stdio.js');
export const loadStreamableHttpTransport = () => import('@modelcontextprotocol/sdk/client/streamableHttp.js');
export const loadSseTransport = () => import('@modelcontextprotocol/sdk/client/sse.js');
