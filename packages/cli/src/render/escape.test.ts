import { describe, expect, it } from 'vitest';
import { escapeJson, escapeLine, escapeText } from './escape.js';

describe('escaping what a model controls before it reaches a terminal', () => {
  it('makes every terminal sequence of the spoofing probes visible', () => {
    const spoofs = [
      'rm -rf ~/x\u001b[2K\recho harmless', // erase the line, return, overprint
      'rm -rf ~/x\u001b[1A\u001b[2Kecho harmless', // move up and rewrite the previous line
      '\u001b]0;innocent title\u0007rm -rf ~', // OSC window title
      'rm -rf ~\u009b2K', // C1 CSI
      'echo \u202eharmless\u202c', // bidi override
      'a\u0000b\u007fc\u200bd',
    ];
    for (const spoof of spoofs) {
      const shown = escapeLine(spoof);
      expect(shown, JSON.stringify(spoof)).not.toMatch(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
        /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069]/,
      );
    }
    expect(escapeLine('rm -rf ~/x\u001b[2K\recho harmless')).toBe('rm -rf ~/x\\e[2K\\recho harmless');
    expect(escapeLine('a\nb\tc')).toBe('a\\nb\\tc');
    expect(escapeLine('echo \u202eharmless')).toBe('echo \\u{202e}harmless');
  });

  it('keeps newlines and tabs in multi-line text, and plain text unchanged', () => {
    expect(escapeText('line 1\n\tline 2\r\u001b[1A')).toBe('line 1\n\tline 2\\r\\e[1A');
    expect(escapeText('Grüße, 你好 — ok ✓')).toBe('Grüße, 你好 — ok ✓');
  });

  it('escapes what JSON.stringify leaves raw, and the result is still the same JSON value', () => {
    const value = { target: 'x\u009b2K\u202ey\u007f' };
    const json = escapeJson(JSON.stringify(value));
    expect(json).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
