import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';
import {
  loadDefinitionFromFile,
  loadDefinitionFromObject,
  loadDefinitionFromText,
} from './load-definition.js';

const env = { OPENAI_API_KEY: 'sk-test', HOST: 'llm.local' };

describe('loading agent files', () => {
  it('accepts the upstream snake_case spellings and aliases', async () => {
    const yaml = `name: a\nmodel:\n  id: m\n  provider: custom\n  connection:\n    kind: key\n    api_key: $OPENAI_API_KEY\n    base_url: http://\${HOST}/v1\n  options: { max_tokens: 100, top_p: 0.5 }\nmax_tool_rounds: 3\nadditional_instructions: Be brief.\n`;
    const { definition, diagnostics } = await loadDefinitionFromText(yaml, { env });
    expect(diagnostics).toEqual([]);
    expect(definition).toMatchObject({
      maxToolRounds: 3,
      additionalInstructions: 'Be brief.',
      model: {
        connection: { apiKey: 'sk-test', endpoint: 'http://llm.local/v1' },
        options: { maxOutputTokens: 100, topP: 0.5 },
      },
    });
  });

  it('resolves =Env.VAR, keeps $$ and lower-case $words literal, and names the field of a missing variable', async () => {
    const ok = await loadDefinitionFromText(
      'name: a\nmodel: { id: "=Env.HOST" }\ninstructions: "Costs $$5 or $5; use $lower"\n',
      { env },
    );
    expect(ok.definition).toMatchObject({
      model: { id: 'llm.local' },
      instructions: 'Costs $5 or $5; use $lower',
    });
    const missing = await loadDefinitionFromText(
      'name: a\nmodel:\n  id: m\n  connection: { api_key: $NOPE_KEY }\n',
      { env, file: 'a.yaml' },
    );
    expect(missing.diagnostics.map(formatDiagnostic)).toEqual([
      'a.yaml:4:26 model.connection.api_key: environment variable NOPE_KEY is not set (write $$ for a literal $)',
    ]);
  });

  it('warns about unknown keys with a suggestion, and fails on them in strict mode', async () => {
    const yaml = 'name: a\nmodel: { id: m }\ninstuctions: hi\n';
    const loose = await loadDefinitionFromText(yaml, { file: 'a.yaml' });
    expect(loose.definition?.name).toBe('a');
    expect(loose.diagnostics.map(formatDiagnostic)).toEqual([
      "a.yaml:3:1 instuctions: unknown field 'instuctions' (did you mean 'instructions'?)",
    ]);
    expect(loose.diagnostics[0]?.severity).toBe('warning');
    const strict = await loadDefinitionFromText(yaml, { file: 'a.yaml', strict: true });
    expect(strict.definition).toBeUndefined();
    expect(strict.diagnostics[0]?.severity).toBe('error');
  });

  it('fails on an unknown key inside approval_mode or toolPolicy even when not strict', async () => {
    const yaml = [
      'name: a',
      'model: { id: m }',
      'toolPolicy: { disable: [run_command] }',
      'tools:',
      '  - kind: mcp',
      '    server: s',
      '    approval_mode: { alwayss: [hang] }',
      'subAgents:',
      '  - name: c',
      '    model: { id: m }',
      '    tool_policy: { enabled: [x], disabeld: [y] }',
      'toolPolcy: { disabled: [z] }',
      '',
    ].join('\n');
    const loose = await loadDefinitionFromText(yaml, { file: 'a.yaml' });
    expect(loose.diagnostics.map(formatDiagnostic)).toEqual([
      "a.yaml:7:22 tools[0].approval_mode.alwayss: unknown field 'alwayss': an unknown key inside approvalMode would be dropped, leaving the setting looser than written",
      "a.yaml:3:15 toolPolicy.disable: unknown field 'disable' (did you mean 'disabled'?): an unknown key inside toolPolicy would be dropped, leaving the setting looser than written",
      "a.yaml:11:34 subAgents[0].tool_policy.disabeld: unknown field 'disabeld' (did you mean 'disabled'?): an unknown key inside toolPolicy would be dropped, leaving the setting looser than written",
      "a.yaml:12:1 toolPolcy: unknown field 'toolPolcy' (did you mean 'toolPolicy'?): a misspelt or misplaced toolPolicy would leave the default in force",
    ]);
    expect(loose.diagnostics.map((d) => d.severity)).toEqual(['error', 'error', 'error', 'error']);
  });

  it('names the field of a duplicate key and the line of its first copy', async () => {
    const { diagnostics } = await loadDefinitionFromText(
      'name: a\nmodel:\n  id: m\n  id: n\ntools:\n  - kind: file\n    name: read_file\n    name: x\n',
      { file: 'a.yaml' },
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      "a.yaml:4:3 model.id: duplicate key 'id' (first on line 3)",
      "a.yaml:8:5 tools[0].name: duplicate key 'name' (first on line 7)",
    ]);
    const json = await loadDefinitionFromText('{"name": "a",\n "name": "b", "model": {"id": "m"}}', {
      file: 'a.json',
    });
    expect(json.diagnostics.map(formatDiagnostic)).toEqual([
      "a.json:2:2 name: duplicate key 'name' (first on line 1)",
    ]);
  });

  it("says an agent file holds one YAML document, without naming the parser's API", async () => {
    const { diagnostics } = await loadDefinitionFromText('name: a\nmodel: { id: m }\n---\nname: b\n', {
      file: 'a.yaml',
    });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'a.yaml:3:1 an agent file holds one YAML document; a second one starts here (remove this `---` and what follows, or split the file)',
    ]);
  });

  it('refuses two spellings of one field', async () => {
    const { diagnostics } = await loadDefinitionFromText(
      'name: a\nmodel: { id: m }\nmaxToolRounds: 2\nmax_tool_rounds: 3\n',
      { file: 'a.yaml' },
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      "a.yaml:4:1 max_tool_rounds: 'max_tool_rounds' and 'maxToolRounds' are the same field; keep one",
    ]);
  });

  it('loads JSON with positions, TOML through smol-toml, and objects', async () => {
    const json = await loadDefinitionFromText('{\n  "name": "j",\n  "model": { "id": 5 }\n}', {
      file: 'a.json',
    });
    expect(json.diagnostics.map(formatDiagnostic)).toEqual([
      'a.json:3:20 model.id: Invalid input: expected string, received number',
    ]);
    const toml = await loadDefinitionFromText('name = "t"\nmaxToolRounds = 4\n[model]\nid = "m"\n', {
      file: 'a.toml',
    });
    expect(toml.definition).toMatchObject({ name: 't', maxToolRounds: 4, model: { id: 'm' } });
    expect(loadDefinitionFromObject({ name: 'o', model: 'gpt-4o' }).definition).toMatchObject({
      model: { id: 'gpt-4o' },
    });
  });

  it('gives TOML diagnostics their real line and column (tables, arrays of tables, inline tables, dotted keys)', async () => {
    const toml = [
      'name = "t"',
      'max_tool_rounds = "many"',
      '[model]',
      'id = "m"',
      'options = { temperature = 0.2, top_p = 7 }',
      '[[tools]]',
      'kind = "file"',
      '[[tools]]',
      'kind = "file"',
      'approval_mode = "sometimes"',
      '[[contexts]]',
      'kind = "workspace"',
      'config.root = "."',
      'polcy = "deny"',
    ].join('\n');
    const { diagnostics } = await loadDefinitionFromText(toml, { file: 'a.toml' });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      "a.toml:14:1 contexts[0].polcy: unknown field 'polcy' (did you mean config.policy?): a misspelt or misplaced policy would leave the default in force",
      'a.toml:5:40 model.options.top_p: Too big: expected number to be <=1',
      'a.toml:10:17 tools[1].approval_mode: must be one of "never", "always", or { always: [tool names], never: [tool names] }',
      'a.toml:2:19 max_tool_rounds: Invalid input: expected number, received string',
    ]);
    const syntax = await loadDefinitionFromText('name = "a"\nmodel = { id = "m" \n', { file: 'b.toml' });
    expect(syntax.diagnostics.map(formatDiagnostic)).toEqual([
      'b.toml:3:1 TOML syntax error: Invalid TOML document: expected comma or end of structure',
    ]);
  });
});

describe('an agent file that cannot be read', () => {
  it("says why in words, at 1:1 of the file, without repeating Node's text and path", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'raf-decl-read-'));
    try {
      await mkdir(join(dir, 'folder.yaml'));
      await writeFile(join(dir, 'file.yaml'), 'name: x\n');
      await symlink('b.yaml', join(dir, 'a.yaml'));
      await symlink('a.yaml', join(dir, 'b.yaml'));
      const cases: [string, string][] = [
        ['missing.yaml', 'no such file'],
        ['folder.yaml', 'is a folder, not an agent file'],
        ['file.yaml/agent.yaml', 'no such file (a folder on its path is a file)'],
        ['a.yaml', 'cannot read it: a loop of symbolic links'],
        [`${'n'.repeat(300)}.yaml`, 'cannot read it: the file name is too long'],
      ];
      for (const [name, message] of cases) {
        const path = join(dir, name);
        const { diagnostics } = await loadDefinitionFromFile(path);
        expect(diagnostics, name).toEqual([
          { file: path, line: 1, column: 1, path: '', message, severity: 'error' },
        ]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
