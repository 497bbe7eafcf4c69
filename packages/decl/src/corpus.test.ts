import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from './builder/decl-agent-builder.js';
import { formatDiagnostic } from './diagnostics/diagnostic.js';

const dir = fileURLToPath(new URL('../test-fixtures/broken', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** Each file's first line says which error it must produce: `# expect: <text>` (a leading `:line:col` pins the position). */
describe('the broken-file corpus', () => {
  it('has at least 60 files', () => {
    expect(files.length).toBeGreaterThanOrEqual(60);
  });

  it.each(files)('%s gives a precise error with file, line and column', async (file) => {
    const path = join(dir, file);
    const expected = readFileSync(path, 'utf8').split('\n')[0]?.replace('# expect: ', '') ?? '';
    const report = await new DeclAgentBuilder()
      .fromYamlFile(path)
      .strictMode()
      .withEnvironment({})
      .validate();
    expect(report.ok).toBe(false);
    const shown = report.errors.map(formatDiagnostic);
    expect(
      shown.some((line) => line.includes(expected)),
      shown.join('\n'),
    ).toBe(true);
    for (const error of report.errors) {
      expect(error.file).toBe(path);
      expect(error.line).toBeGreaterThan(0);
      expect(error.column).toBeGreaterThan(0);
    }
  });
});
