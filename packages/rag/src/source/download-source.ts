import { GuardedHttpClient } from '@raf/web/http';
import { MAX_SOURCE_BYTES } from './read-source.js';

/** A URL source's download: most bytes, whole time, redirects (each hop checked by the guard). */
export const DOWNLOAD_LIMITS = Object.freeze({
  maxBytes: MAX_SOURCE_BYTES,
  timeoutMs: 60_000,
  maxRedirects: 5,
});

export interface Downloaded {
  bytes: Buffer;
  contentType: string | undefined;
}

/**
 * Downloads URL sources through the one SSRF guard of `@raf/web/http` (SPEC §9): a listed page
 * that redirects to a private, loopback, link-local or metadata address is refused at connect
 * time, on every hop, unless `allowPrivate` names it. The client is made on the first download.
 */
export class SourceDownloader {
  private client: GuardedHttpClient | undefined;

  constructor(private readonly allowPrivate: readonly string[] = []) {
    // A malformed entry is an error when the knowledge base is opened, not at the first download.
    if (allowPrivate.length > 0) this.client = this.make();
  }

  private make(): GuardedHttpClient {
    return new GuardedHttpClient({
      allowPrivate: this.allowPrivate,
      maxBytes: DOWNLOAD_LIMITS.maxBytes,
      timeoutMs: DOWNLOAD_LIMITS.timeoutMs,
      maxRedirects: DOWNLOAD_LIMITS.maxRedirects,
    });
  }

  async download(url: string, signal: AbortSignal): Promise<Downloaded> {
    this.client ??= this.make();
    const response = await this.client.request(url, { signal });
    if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${response.status}`);
    return { bytes: response.body, contentType: response.headers['content-type'] };
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }
}
