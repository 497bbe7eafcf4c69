const MAX_ERROR_BODY = 64 * 1024;

/** Reads at most 64 KiB of an error response body as text. */
export async function readErrorBody(body: AsyncIterable<Buffer | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= MAX_ERROR_BODY) return `${text.slice(0, MAX_ERROR_BODY)}…`;
  }
  return text + decoder.decode();
}

/**
 * The provider's own message (`{"error":{"message":…}}` and common variants, Anthropic's with its
 * error type), else the trimmed body.
 */
export function extractErrorMessage(body: string): string {
  const trimmed = body.trim();
  if (trimmed === '') return '';
  try {
    const json = JSON.parse(trimmed) as Record<string, unknown>;
    const error = json.error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object') {
      const { message, type } = error as Record<string, unknown>;
      // Anthropic: {"type":"error","error":{"type":"invalid_request_error","message":…}}
      if (typeof message === 'string')
        return json.type === 'error' && typeof type === 'string' ? `${type}: ${message}` : message;
    }
    if (typeof json.message === 'string') return json.message;
    if (typeof json.detail === 'string') return json.detail;
  } catch {
    // Not JSON: show the text itself.
  }
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed;
}
