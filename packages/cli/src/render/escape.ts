// C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text (bidi
// overrides and isolates, zero-width marks, line/paragraph separators): anything that lets a
// string printed to a terminal look like something else (`ESC[2K`, `\r`, `ESC[1A`, OSC titles,
// "Trojan Source" reordering).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_LINE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
// The same, except newline and tab: the shape of a streamed answer stays readable.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function visible(char: string): string {
  return NAMED[char] ?? `\\u{${char.codePointAt(0)!.toString(16)}}`;
}

/**
 * One line of something a model (or a file) controls, made safe to print: every control and
 * invisible formatting character becomes a visible escape (`\e[2K`, `\r`, `\u{202e}`).
 */
export function escapeLine(text: string): string {
  return text.replace(UNSAFE_LINE, visible);
}

/** Multi-line text (a streamed answer, a diff): like `escapeLine`, but newlines and tabs stay. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE_TEXT, visible);
}

// JSON.stringify escapes U+0000–U+001F but leaves DEL, the C1 range and the format characters raw.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** A JSON text with the characters `JSON.stringify` leaves raw escaped as `\uXXXX` (still valid JSON). */
export function escapeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
