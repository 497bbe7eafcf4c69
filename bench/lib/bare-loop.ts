import { type Dispatcher, request } from 'undici';

export interface BareCall {
  id: string;
  name: string;
  args: string;
}

type Delta = {
  content?: string;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
};

/**
 * The floor: one hand-written undici request with the minimum SSE handling (split events, strip
 * `data: `, JSON.parse, concatenate text and each call's id, name and arguments). No retries,
 * timeouts or checks. Both benchmarks' floors use it.
 */
export async function bareChatCompletion(
  baseURL: string,
  body: Record<string, unknown>,
  dispatcher: Dispatcher,
): Promise<{ text: string; calls: BareCall[] }> {
  const response = await request(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    dispatcher,
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  const calls: BareCall[] = [];
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Buffer, { stream: true });
    // Scan with an index and keep only the unfinished tail: linear in the bytes received.
    let start = 0;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const data = buffer.slice(start + 6, end);
      if (data !== '[DONE]') {
        const delta = (JSON.parse(data) as { choices?: { delta?: Delta }[] }).choices?.[0]?.delta;
        if (delta?.content) text += delta.content;
        for (const c of delta?.tool_calls ?? []) {
          let call = calls[c.index];
          if (!call) {
            call = { id: '', name: '', args: '' };
            calls[c.index] = call;
          }
          if (c.id) call.id = c.id;
          if (c.function?.name) call.name += c.function.name;
          if (c.function?.arguments) call.args += c.function.arguments;
        }
      }
      start = end + 2;
      end = buffer.indexOf('\n\n', start);
    }
    buffer = buffer.slice(start);
  }
  return { text, calls };
}
