import { type Dispatcher, request } from 'undici';

/**
 * The floor: a hand-written undici request with the minimum SSE handling (split events, strip
 * `data: `, JSON.parse, concatenate text and tool arguments). No retries, timeouts or checks.
 */
export async function bareChatCompletion(
  baseURL: string,
  body: Record<string, unknown>,
  dispatcher: Dispatcher,
): Promise<{ text: string; toolArgs: string[] }> {
  const response = await request(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    dispatcher,
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  const toolArgs: string[] = [];
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Buffer, { stream: true });
    // Scan with an index and keep only the unfinished tail: linear in the bytes received.
    let start = 0;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      if (buffer.startsWith('data: ', start)) {
        const data = buffer.slice(start + 6, end);
        if (data !== '[DONE]') {
          const json = JSON.parse(data) as {
            choices?: {
              delta?: {
                content?: string;
                tool_calls?: { index: number; function?: { arguments?: string } }[];
              };
            }[];
          };
          const delta = json.choices?.[0]?.delta;
          if (delta?.content) text += delta.content;
          for (const call of delta?.tool_calls ?? []) {
            toolArgs[call.index] = (toolArgs[call.index] ?? '') + (call.function?.arguments ?? '');
          }
        }
      }
      start = end + 2;
      end = buffer.indexOf('\n\n', start);
    }
    buffer = buffer.slice(start);
  }
  return { text, toolArgs };
}
