import { describe, expect, it } from 'vitest';
import { loadDefinitionFromText } from './load-definition.js';
import { AGENT_FILE_MAX_BYTES } from './source-document.js';

/** A "billion laughs" YAML: nine levels of nine aliases, a few hundred bytes that expand to 9^9. */
function bomb(): string {
  const names = 'abcdefghi';
  const lines = ['x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < names.length; i++)
    lines.push(
      `x-${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(',')}]`,
    );
  return `${lines.join('\n')}\n`;
}

describe('agent files are parsed within the shared YAML limits', () => {
  it('an alias bomb is one located error at the alias where the nesting starts', async () => {
    const started = Date.now();
    const loaded = await loadDefinitionFromText(`name: b\nmodel: { id: m }\n${bomb()}`, {
      file: 'agent.yaml',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(loaded.definition).toBeUndefined();
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({
        file: 'agent.yaml',
        line: 5,
        severity: 'error',
        message: expect.stringMatching(/too many alias expansions/),
      }),
    ]);
  }, 60_000);

  it('a file over the size cap is refused before parsing', async () => {
    const loaded = await loadDefinitionFromText(`name: b\n# ${'x'.repeat(AGENT_FILE_MAX_BYTES)}\n`, {
      file: 'agent.yaml',
    });
    expect(loaded.diagnostics[0]).toMatchObject({
      line: 1,
      message: expect.stringMatching(/over the \d+-byte limit/),
    });
  }, 60_000);
});
