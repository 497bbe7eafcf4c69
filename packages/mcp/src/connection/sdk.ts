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

/**
 * Most bytes one HTTP answer of a server may have (a JSON body), or one event of its SSE stream.
 * The SDK reads a body whole: a server that streamed an endless body grew `raf` by 5 GB within a
 * call's 60 s. Above the stdio limit (10 MiB) so a 50 MB result still arrives and is cut to
 * `max_result_bytes` like any other.
 */
export const MAX_HTTP_MESSAGE_BYTES = 64 * 1024 * 1024;

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** `fetch` for the SDK's HTTP transports, whose answers stop at `max` bytes (per event for a stream). */
export function cappedFetch(max = MAX_HTTP_MESSAGE_BYTES): Fetch {
  return async (url, init) => {
    const response = await globalThis.fetch(url, init);
    if (!response.body) return response;
    const stream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    let seen = 0;
    let newline = false;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!stream) seen += chunk.byteLength;
          // An event ends at a blank line ("\n\n", "\r\n\r\n"): count the bytes since the last one.
          else
            for (const byte of chunk) {
              if (byte === 13) continue;
              seen = byte === 10 && newline ? 0 : seen + 1;
              newline = byte === 10;
            }
          if (seen > max)
            controller.error(
              new Error(
                `the server sent ${stream ? 'an event' : 'an answer'} over ${max / 1024 / 1024} MiB, more than an MCP message may be`,
              ),
            );
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
