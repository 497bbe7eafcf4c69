import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';
import { loadDefinitionFromText } from './load-definition.js';

// Issue 29 item 10: a syntax error said once per spot, in words about the file, at the column of
// the character that is wrong, with its source line and a caret.
const shown = async (text: string, file = 'agent.yaml') =>
  (await loadDefinitionFromText(text, { file })).diagnostics.map(formatDiagnostic);

describe('YAML syntax errors', () => {
  it('a key indented deeper than its sibling: once, on its own line and column, with a caret', async () => {
    expect(await shown('name: x\nmodel:\n  id: m\n     provider: openai\n')).toEqual([
      [
        'agent.yaml:4:6 YAML syntax error: this key is indented deeper than the key above it (this line starts at column 6, the one above at column 3); keys of one mapping start at the same column',
        '  4 |      provider: openai',
        '    |      ^',
      ].join('\n'),
    ]);
  });

  it('a key indented less than its siblings: at the key, not at column 1', async () => {
    expect(await shown('name: x\nmodel:\n  id: m\n provider: openai\n')).toEqual([
      [
        'agent.yaml:4:2 YAML syntax error: this line is not indented like the others of its block (this line starts at column 2, the one above at column 3); items of one mapping or list start at the same column',
        '  4 |  provider: openai',
        '    |  ^',
      ].join('\n'),
    ]);
  });

  it('a plain value holding ": " is told to be quoted, at the value', async () => {
    expect(await shown('name: x\ninstructions: Note: be brief\n')).toEqual([
      [
        'agent.yaml:2:15 YAML syntax error: this value holds `: `, which YAML reads as a nested key; put the value in quotes',
        '  2 | instructions: Note: be brief',
        '    |               ^',
      ].join('\n'),
    ]);
  });

  it('an unclosed flow mapping and a tab say so in plain words', async () => {
    const [flow] = await shown('name: x\ntools:\n  - kind: file\n    config: { a: 1\ninstructions: hi\n');
    expect(flow).toMatch(/^agent\.yaml:\d+:\d+ YAML syntax error: a flow mapping `\{ … \}` is not closed/);
    const tab = await shown('name: x\ntools:\n\t- kind: file\n');
    expect(tab).toHaveLength(1);
    expect(tab[0]).toContain('YAML indents with spaces only');
    expect(tab[0]).toContain('\n  3 | \t- kind: file\n    | ^');
  });

  it('never says the same spot twice, and JSON files get the caret too', async () => {
    for (const text of ['name: "x\nmodel: { id: m }\n', 'name: x\ninstructions: @me\n', 'a: [1, 2\nb: 3\n']) {
      const lines = (await shown(text)).map((d) => d.split('\n')[0]!.split(' ')[0]);
      expect(new Set(lines).size, lines.join(' ')).toBe(lines.length);
    }
    const json = await shown('{"name": "x",\n  "model": {"id": "m"\n', 'agent.json');
    expect(json).toHaveLength(1);
    expect(json[0]).toMatch(/^agent\.json:\d+:\d+ YAML syntax error: .*\n {2}\d \| .*\n {4}\| +\^$/);
  });
});
