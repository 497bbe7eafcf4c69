import { StringDecoder } from 'node:string_decoder';

/**
 * A response body's bytes as text, chunk by chunk, as `new TextDecoder().decode(bytes,
 * { stream: true })` reads them: a character split between two chunks is joined, a leading BOM is
 * dropped, invalid bytes become U+FFFD. Node's `StringDecoder` decodes with V8's UTF-8 decoder
 * straight into a one-byte string when the text is ASCII (what JSON mostly is); TextDecoder's
 * streaming mode goes through ICU and UTF-16 instead, about 8× the cost per byte, which showed as
 * the largest single item of a streamed answer's CPU time after `JSON.parse`.
 */
export class Utf8Stream {
  private readonly decoder = new StringDecoder('utf8');
  private atStart = true;

  decode(bytes: Buffer): string {
    const text = this.decoder.write(bytes);
    if (!this.atStart || text === '') return text;
    this.atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
