import { describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from '../builder/decl-agent-builder.js';
import { formatDiagnostic, suggest } from './diagnostic.js';

describe('"did you mean" hints', () => {
  it('count two swapped letters as one typo', () => {
    expect(suggest('fiel', ['file', 'function', 'custom', 'shell'])).toBe('file');
    expect(suggest('contetxs', ['contexts', 'tools'])).toBe('contexts');
    expect(suggest('polciy', ['policy', 'root'])).toBe('policy');
    // Still no hint for what is not a near miss.
    expect(suggest('zzzz', ['file', 'shell'])).toBeUndefined();
  });

  it('name the closest tool kind and file tool of a near miss', async () => {
    const report = await new DeclAgentBuilder()
      .fromYaml(
        'name: a\nmodel: { id: m, provider: openai }\ntools:\n  - kind: fiel\n  - kind: file\n    name: raed_file\n',
        'a.yaml',
      )
      .withEnvironment({})
      .validate();
    expect(report.errors.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /^a\.yaml:4:11 tools\[0\]\.kind: unknown tool kind "fiel" \(did you mean "file"\?\); known: /,
      ),
      expect.stringMatching(
        /^a\.yaml:6:11 tools\[1\]\.name: "raed_file" is not a file tool \(did you mean "read_file"\?\); use one of /,
      ),
    ]);
  });
});
