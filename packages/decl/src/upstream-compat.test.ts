import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChatClient } from '@raf/client';
import { startMockModelServer, startMockResponsesServer } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { FILE_TOOL_NAMES } from '@raf/framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeclAgentBuilder, type ValidationReport } from './builder/decl-agent-builder.js';
import { formatDiagnostic } from './diagnostics/diagnostic.js';

// Issue 11: the upstream's own agent files load unchanged. Each test holds the smallest file that
// showed a bug.

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-compat-')));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const LOCAL = 'model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';

async function validate(name: string, yaml: string, env: Record<string, string> = {}) {
  const report = await new DeclAgentBuilder()
    .fromYaml(yaml, join(dir, `${name}.yaml`))
    .withEnvironment(env)
    .validate();
  return { report, shown: shown(report) };
}

const shown = (report: ValidationReport) => ({
  errors: report.errors.map(formatDiagnostic).map((line) => line.slice(dir.length + 1)),
  warnings: report.warnings.map(formatDiagnostic).map((line) => line.slice(dir.length + 1)),
});

async function drain(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

// A client that knows the provider name (the anthropic/agnes clients come with @raf/client).
const clientKnows = (provider: string) => {
  try {
    createChatClient({ provider, model: 'm', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k' } as never);
    return true;
  } catch {
    return false;
  }
};

describe('item 1: one built-in reached by two entries', () => {
  it('kind: file + kind: shell keep one run_command, with a warning that inspect shows', async () => {
    const yaml = `name: a\n${LOCAL}\ntools:\n  - kind: file\n  - kind: shell\n`;
    const { report, shown: lines } = await validate('dup-builtin', yaml);
    expect(report.ok).toBe(true);
    expect(lines.warnings).toEqual([
      "dup-builtin.yaml:5:11 tools[1].kind: 'run_command' is already in the tools (from tools[0]); one copy is kept",
    ]);
    const plan = await new DeclAgentBuilder().fromYaml(yaml, join(dir, 'dup-builtin.yaml')).explain();
    expect(plan.tools.map((t) => t.name)).toEqual([...FILE_TOOL_NAMES]);
    expect(plan.warnings).toEqual([expect.stringContaining("'run_command' is already in the tools")]);
  });

  it('an explicit entry beside its expansion is kept once too; two explicit entries stay an error', async () => {
    const both = await validate(
      'dup-explicit',
      `name: a\n${LOCAL}\ntools:\n  - kind: file\n  - kind: file\n    name: read_file\n`,
    );
    expect(both.report.ok).toBe(true);
    expect(both.report.warnings).toHaveLength(1);
    const twice = await validate(
      'dup-twice',
      `name: a\n${LOCAL}\ntools:\n  - kind: file\n    name: read_file\n  - kind: file\n    name: read_file\n`,
    );
    expect(twice.shown.errors).toEqual([
      "dup-twice.yaml:7:11 tools[1].name: duplicate tool name 'read_file' (also from tools[0])",
    ]);
  });

  it('two different tools with one name stay an error', async () => {
    const tool = defineTool({
      name: 'read_file',
      description: 'Mine',
      parameters: z.object({}),
      execute: () => toolSuccess('x'),
    });
    const report = await new DeclAgentBuilder()
      .fromYaml(
        `name: a\n${LOCAL}\ntools:\n  - kind: file\n  - kind: function\n    name: read_file\n`,
        join(dir, 'dup-different.yaml'),
      )
      .registerFactory('read_file', () => tool)
      .validate();
    expect(shown(report).errors).toEqual([
      "dup-different.yaml:6:11 tools[1].name: duplicate tool name 'read_file' (also from tools[0])",
    ]);
  });
});

describe('item 2: the upstream providers', () => {
  it('agnes and anthropic are registered model providers (no "unknown model provider")', async () => {
    for (const provider of ['agnes', 'anthropic']) {
      const { shown: lines } = await validate(provider, `name: a\nmodel: { id: m, provider: ${provider} }\n`);
      expect(lines.errors.join('\n')).not.toMatch(/unknown model provider ".*"; known/);
    }
  });

  it.runIf(clientKnows('agnes'))(
    'provider: agnes talks to the YAML endpoint with the AGNES_API_KEY of the environment',
    async () => {
      const server = await startMockModelServer({ turns: [{ text: 'hi' }] });
      try {
        const agent = await new DeclAgentBuilder()
          .fromYaml(
            `name: a\nmodel: { id: agnes-1, provider: agnes, connection: { endpoint: "${server.baseURL}" } }\n`,
          )
          .withEnvironment({ AGNES_API_KEY: 'agnes-key' })
          .build();
        await drain(agent.run('x'));
        expect(server.requests[0]?.headers.authorization).toBe('Bearer agnes-key');
      } finally {
        await server.close();
      }
    },
  );
});

describe('item 3: kind workflow and hosted', () => {
  it('a workflow file validates without a model (issue 14: @raf/workflow compiles it)', async () => {
    const { shown: lines } = await validate(
      'wf',
      'kind: workflow\nname: w\ntrigger:\n  kind: OnConversationStart\n  actions:\n    - kind: SendActivity\n      activity: { text: hi }\n',
    );
    expect(lines).toEqual({ errors: [], warnings: [] });
  });

  it('a hosted file is parse only', async () => {
    const { shown: lines } = await validate('hosted', 'kind: hosted\nname: h\nprotocol_versions: [v1]\n');
    expect(lines.errors).toEqual([
      'hosted.yaml:1:7 kind: parse only: hosted (container) agents need an external deployment; RAF cannot build or run them',
    ]);
  });
});

describe('item 4 and v1: files that are not a bare agent', () => {
  it('an AgentManifest gives one error: remove the outer template', async () => {
    const { shown: lines } = await validate(
      'manifest',
      'name: m\ntemplate:\n  kind: prompt\n  name: inner\n  model: { id: gpt-4o }\nparameters: { properties: [] }\n',
    );
    expect(lines.errors).toEqual([
      'manifest.yaml:2:1 template: contains a Manifest; expected a bare AgentDefinition — remove the outer `template` (its fields go at the top level; `parameters` and `resources` are not used)',
    ]);
  });

  it('a v1 file gets one "retired format" hint', async () => {
    const { shown: lines } = await validate(
      'v1',
      'id: old\nmodel:\n  model: gpt-4\ntools:\n  - type: builtin\n    name: read_file\n',
    );
    expect(lines.errors).toHaveLength(1);
    expect(lines.errors[0]).toMatch(
      /^v1\.yaml:1:1 id: this is the retired Agent Declaration Protocol v1 format/,
    );
    const toolsOnly = await validate(
      'v1b',
      `name: a\n${LOCAL}\ntools:\n  - type: builtin\n    name: read_file\n`,
    );
    expect(toolsOnly.shown.errors).toEqual([
      expect.stringMatching(/^v1b\.yaml:4:5 tools\[0\]\.type: this is the retired/),
    ]);
  });
});

describe('item 5: reference connections', () => {
  it('an unregistered reference is an error naming it and withConnection, in validate and build', async () => {
    const yaml = 'name: a\nmodel:\n  id: m\n  connection: { kind: reference, name: corp }\n';
    const { shown: lines } = await validate('ref', yaml);
    const expected =
      "ref.yaml:4:40 model.connection.name: connection 'corp' is not registered; call builder.withConnection('corp', { endpoint, apiKey }) before build()";
    expect(lines.errors).toEqual([expected]);
    await expect(
      new DeclAgentBuilder().fromYaml(yaml, join(dir, 'ref.yaml')).withEnvironment({}).build(),
    ).rejects.toThrow(/connection 'corp' is not registered/);
  });

  it('a registered reference brings its endpoint, key and headers', async () => {
    const server = await startMockModelServer({ turns: [{ text: 'hi' }] });
    try {
      const agent = await new DeclAgentBuilder()
        .fromYaml(
          'name: a\nmodel: { id: m, provider: custom, connection: { kind: reference, target: corp } }\n',
        )
        .withConnection('corp', {
          endpoint: server.baseURL,
          apiKey: 'corp-key',
          headers: { 'x-team': 'ops' },
        })
        .build();
      await drain(agent.run('x'));
      expect(server.requests[0]?.headers).toMatchObject({
        authorization: 'Bearer corp-key',
        'x-team': 'ops',
      });
    } finally {
      await server.close();
    }
  });
});

describe('items 6 and 9: connection and options as upstream writes them', () => {
  it('auth_mode key|entra_id is accepted with a deprecation warning; another value is an error', async () => {
    const { report, shown: lines } = await validate(
      'auth',
      `name: a\nmodel:\n  id: m\n  provider: custom\n  connection: { endpoint: "http://127.0.0.1:9/v1", auth_mode: key }\n`,
    );
    expect(report.ok).toBe(true);
    expect(lines.warnings).toEqual([
      "auth.yaml:5:52 model.connection.auth_mode: auth_mode is deprecated (the upstream docs' spelling) and ignored: an api_key is used when given",
    ]);
    const entra = await validate('entra', `name: a\n${LOCAL.replace('" }', '", auth_mode: entra_id }')}\n`);
    expect(entra.report.ok).toBe(true);
    expect(entra.shown.warnings[0]).toMatch(/auth_mode is deprecated .* Entra ID is not supported/);
    const bad = await validate('auth-bad', `name: a\n${LOCAL.replace('" }', '", auth_mode: token }')}\n`);
    expect(bad.shown.errors).toEqual([expect.stringMatching(/auth_mode: auth_mode must be key or entra_id/)]);
  });

  it('unknown option keys go to the request body and unknown connection strings become headers, with warnings that never show values', async () => {
    const server = await startMockModelServer({ turns: [{ text: 'hi' }] });
    try {
      const yaml = `name: a\nmodel:\n  id: m\n  provider: custom\n  connection: { X-Org-Id: secret-org, endpoint: "${server.baseURL}" }\n  options: { temperature: 0.1, enable_thinking: true, chat_template_kwargs: { enable_thinking: false } }\n`;
      const builder = new DeclAgentBuilder().fromYaml(yaml, join(dir, 'pass.yaml')).withEnvironment({});
      const report = await builder.validate();
      expect(report.ok).toBe(true);
      expect(shown(report).warnings).toEqual([
        "pass.yaml:5:17 model.connection.X-Org-Id: 'X-Org-Id' is not a connection field; it is sent as the HTTP header 'X-Org-Id'",
        "pass.yaml:6:32 model.options.enable_thinking: 'enable_thinking' is not a known model option; it is sent as-is in the request body",
        "pass.yaml:6:55 model.options.chat_template_kwargs: 'chat_template_kwargs' is not a known model option; it is sent as-is in the request body",
      ]);
      expect(JSON.stringify(report)).not.toContain('secret-org');
      await drain((await builder.build()).run('x'));
      expect(server.requests[0]?.headers['x-org-id']).toBe('secret-org');
      expect(server.requests[0]?.body).toMatchObject({
        temperature: 0.1,
        enable_thinking: true,
        chat_template_kwargs: { enable_thinking: false },
      });
    } finally {
      await server.close();
    }
  });

  it('a near-miss connection key says what it probably meant', async () => {
    const { shown: lines } = await validate('kye', `name: a\n${LOCAL.replace('" }', '", api_kye: sk }')}\n`);
    expect(lines.warnings).toEqual([
      expect.stringMatching(/'api_kye' .* HTTP header 'api_kye' \(did you mean 'api_key'\?\)/),
    ]);
  });
});

describe('item 7: older tool kinds and the known-kinds list', () => {
  it('kind: web_search is kind: web, name: web_search with a deprecation warning', async () => {
    const ping = defineTool({
      name: 'web_search',
      description: 'Search',
      parameters: z.object({}),
      execute: () => toolSuccess('x'),
    });
    const seen: unknown[] = [];
    const plan = await new DeclAgentBuilder()
      .fromYaml(`name: a\n${LOCAL}\ntools:\n  - kind: web_search\n`, join(dir, 'ws.yaml'))
      .use({
        specificationVersion: 'v1',
        packageName: '@raf/web',
        toolKinds: {
          web: (decl) => {
            seen.push({ kind: decl.kind, name: decl.name });
            return [ping];
          },
        },
      })
      .explain();
    expect(seen).toEqual([{ kind: 'web', name: 'web_search' }]);
    expect(plan.warnings).toEqual([
      expect.stringMatching(
        /ws\.yaml:4:11 tools\[0\]\.kind: kind: web_search is deprecated; it means kind: web, name: web_search$/,
      ),
    ]);
  });

  it('without @raf/web, web_fetch names the package; an unknown kind lists the extension kinds and their packages', async () => {
    const { shown: lines } = await validate(
      'kinds',
      `name: a\n${LOCAL}\ntools:\n  - kind: web_fetch\n  - kind: webb\ncontexts:\n  - kind: wikki\n`,
    );
    expect(lines.errors).toEqual([
      'kinds.yaml:4:11 tools[0].kind: tool kind "web" needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
      'kinds.yaml:5:11 tools[1].kind: unknown tool kind "webb" (did you mean "web"?); known: custom, file, function, shell; with extensions: code (@raf/sandbox), mcp (@raf/mcp), openapi (@raf/openapi), web (@raf/web)',
      'kinds.yaml:7:11 contexts[0].kind: unknown context kind "wikki" (did you mean "wiki"?); known: bundle, compression, history, memory, skills, workspace; with extensions: knowledge (@raf/rag), mcp (@raf/mcp), wiki (@raf/wiki)',
    ]);
  });
});

describe('item 8: a missing skills folder', () => {
  const yaml = `name: a\n${LOCAL}\ncontexts:\n  - kind: skills\n    name: gone\n`;

  it('warns in validate and inspect and is skipped at build; an error only in strict mode', async () => {
    const { report, shown: lines } = await validate('skills', yaml);
    expect(report.ok).toBe(true);
    expect(lines.warnings).toEqual([
      `skills.yaml:4:5 contexts[0]: ${dir}/skills/gone: the skills folder does not exist; the skills provider is skipped`,
    ]);
    const builder = new DeclAgentBuilder().fromYaml(yaml, join(dir, 'skills.yaml'));
    const plan = await builder.explain();
    expect(plan.contexts.map((c) => c.kind)).toEqual(['history']);
    expect(plan.warnings).toEqual([expect.stringContaining('the skills folder does not exist')]);
    const agent = await builder.build();
    expect(agent.contextProviders.map((p) => p.kind)).toEqual(['history']);
    const strict = await new DeclAgentBuilder()
      .fromYaml(yaml, join(dir, 'skills.yaml'))
      .strictMode()
      .validate();
    expect(shown(strict).errors).toEqual([
      `skills.yaml:4:5 contexts[0]: ${dir}/skills/gone: the skills folder does not exist`,
    ]);
    const keysOnly = await new DeclAgentBuilder()
      .fromYaml(yaml, join(dir, 'skills.yaml'))
      .strictMode({ unknownKeys: true })
      .validate();
    expect(keysOnly.ok).toBe(true);
  });
});

describe('item 10: validate reports every problem at once', () => {
  it('schema errors do not hide duplicate tools, missing factories, unknown kinds or missing folders', async () => {
    const { shown: lines } = await validate(
      'all',
      `name: a\n${LOCAL}\nmaxToolRounds: 0\ntools:\n  - kind: file\n    name: read_file\n  - kind: file\n    name: read_file\n  - kind: function\n    name: nope\n  - kind: web\n    approval_mode: sometimes\ncontexts:\n  - kind: skills\n    name: none\n  - kind: workspace\n    config: { root: 5 }\n`,
    );
    expect(lines).toEqual({
      errors: [
        'all.yaml:3:16 maxToolRounds: Too small: expected number to be >=1',
        "all.yaml:8:11 tools[1].name: duplicate tool name 'read_file' (also from tools[0])",
        "all.yaml:10:11 tools[2].name: no factory for function tool 'nope'; register one with builder.registerFactory('nope', …) or withTool",
        'all.yaml:11:11 tools[3].kind: tool kind "web" needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
        'all.yaml:12:20 tools[3].approval_mode: must be one of "never", "always", or { always: [tool names], never: [tool names] }',
        'all.yaml:17:21 contexts[1].config.root: Invalid input: expected string, received number',
      ],
      warnings: [
        `all.yaml:14:5 contexts[0]: ${dir}/skills/none: the skills folder does not exist; the skills provider is skipped`,
      ],
    });
  });

  it('an unset variable does not hide the other problems either', async () => {
    const { shown: lines } = await validate(
      'env',
      'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1", api_key: $NOPE } }\ntools:\n  - kind: function\n    name: nope\n',
    );
    expect(lines.errors).toEqual([
      'env.yaml:2:93 model.connection.api_key: environment variable NOPE is not set (write $$ for a literal $)',
      "env.yaml:5:11 tools[0].name: no factory for function tool 'nope'; register one with builder.registerFactory('nope', …) or withTool",
    ]);
  });
});

describe('item 12: provider variables fill only what the file leaves empty', () => {
  it('OPENAI_BASE_URL never redirects a deepseek agent nor an explicit endpoint; it fills an empty openai one', async () => {
    const server = await startMockModelServer({ turns: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    const elsewhere = await startMockModelServer({ turns: [{ text: 'x' }] });
    try {
      const env = {
        OPENAI_BASE_URL: elsewhere.baseURL,
        OPENAI_API_KEY: 'openai-key',
        DEEPSEEK_API_KEY: 'deepseek-key',
      };
      const run = async (model: string) => {
        const agent = await new DeclAgentBuilder()
          .fromYaml(`name: a\nmodel: ${model}\n`)
          .withEnvironment(env)
          .build();
        await drain(agent.run('x'));
      };
      await run(`{ id: m, provider: deepseek, connection: { endpoint: "${server.baseURL}" } }`);
      await run(
        `{ id: m, provider: openai, connection: { endpoint: "${server.baseURL}", api_key: yaml-key } }`,
      );
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer deepseek-key',
        'Bearer yaml-key',
      ]);
      expect(elsewhere.requests).toHaveLength(0);
      await run('{ id: m, provider: openai }');
      expect(elsewhere.requests.map((r) => r.headers.authorization)).toEqual(['Bearer openai-key']);
      // withModel (the CLI's --base-url) stays an explicit override.
      const agent = await new DeclAgentBuilder()
        .fromYaml(
          `name: a\nmodel: { id: m, provider: deepseek, connection: { endpoint: "${elsewhere.baseURL}" } }\n`,
        )
        .withEnvironment(env)
        .withModel({ baseURL: server.baseURL })
        .build();
      await drain(agent.run('x'));
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
      await elsewhere.close();
    }
  });
});

describe('item 13: workspace roots and duplicate contexts', () => {
  it('root: [1, 2] and root: "" are errors; a missing root is an error naming it unless create: true', async () => {
    const ws = (config: string) =>
      `name: a\n${LOCAL}\ncontexts:\n  - kind: workspace\n    config: ${config}\n`;
    expect((await validate('root-list', ws('{ root: [1, 2] }'))).shown.errors).toEqual([
      'root-list.yaml:5:21 contexts[0].config.root: Invalid input: expected string, received array',
    ]);
    expect((await validate('root-empty', ws('{ root: "" }'))).shown.errors).toEqual([
      "root-empty.yaml:5:21 contexts[0].config.root: must not be empty (write '.' for the agent file's folder)",
    ]);
    expect((await validate('root-missing', ws('{ root: ./nowhere }'))).shown.errors).toEqual([
      `root-missing.yaml:4:5 contexts[0]: the workspace root ${dir}/nowhere does not exist (create it, or set create: true)`,
    ]);
    const create = new DeclAgentBuilder().fromYaml(
      ws('{ root: ./made, create: true }'),
      join(dir, 'create.yaml'),
    );
    expect((await create.validate()).ok).toBe(true);
    await expect(realpath(join(dir, 'made'))).rejects.toThrow(); // validate creates nothing
    await create.build();
    expect(await realpath(join(dir, 'made'))).toBe(join(dir, 'made'));
  });

  it('two contexts with one kind and name are an error', async () => {
    await mkdir(join(dir, 'w'), { recursive: true });
    const { shown: lines } = await validate(
      'two-ctx',
      `name: a\n${LOCAL}\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ./w }\n  - kind: workspace\n    name: w\n    config: { root: ./w }\n`,
    );
    expect(lines.errors).toEqual([
      'two-ctx.yaml:8:11 contexts[1].name: contexts[0] is also kind: workspace, name: w; give each its own name',
    ]);
  });
});

describe('an upstream docs example with instructions under [model.options]', () => {
  it('is refused with an error that names where instructions belong (TOML, as the docs write it)', async () => {
    const toml = [
      'kind = "prompt"',
      'name = "toml-agent"',
      '',
      '[model]',
      'id = "m"',
      'provider = "custom"',
      '',
      '[model.connection]',
      'endpoint = "http://127.0.0.1:9/v1"',
      '',
      '[model.options]',
      'temperature = 0.2',
      'instructions = "You are helpful."',
      '',
    ].join('\n');
    const report = await new DeclAgentBuilder().fromToml(toml, join(dir, 'docs.toml')).validate();
    expect(shown(report).errors).toEqual([
      "docs.toml:13:1 model.options.instructions: 'instructions' belongs at the top level of the agent file, not under model.options",
    ]);
  });
});

describe("the upstream's apiType", () => {
  it('apiType: responses (or api_type) runs on the OpenAI Responses API', async () => {
    const server = await startMockResponsesServer({
      turns: [{ reasoning: 'Thinking.', text: 'From responses.' }, { text: 'Again.' }],
    });
    try {
      for (const key of ['apiType', 'api_type']) {
        const agent = await new DeclAgentBuilder()
          .fromYaml(
            `name: r\nmodel:\n  id: gpt-5-mini\n  provider: openai\n  ${key}: responses\n  connection: { endpoint: "${server.baseURL}", api_key: k }\n`,
            join(dir, 'responses.yaml'),
          )
          .build();
        const text = (await drain(agent.run('hi')))
          .filter(
            (u): u is { type: 'text-delta'; delta: string } => (u as { type: string }).type === 'text-delta',
          )
          .map((u) => u.delta)
          .join('');
        expect(text).toMatch(/^(From responses\.|Again\.)$/);
      }
      expect(server.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
      expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-5-mini', store: false });
    } finally {
      await server.close();
    }
  });
});

describe('model.options.cache (Anthropic prompt caching)', () => {
  it('marks system, tools and the last turn by default; a list marks only those places; false none', async () => {
    const { startMockAnthropicServer } = await import('@raf/client/testing');
    const server = await startMockAnthropicServer({ turns: [{ text: 'a' }, { text: 'b' }] });
    try {
      const file = (cache: string) =>
        `name: c\nmodel:\n  id: claude-x\n  provider: anthropic\n  connection: { endpoint: "${server.url}", api_key: k }\n${cache}instructions: Be brief.\n`;
      for (const cache of ['', '  options: { cache: [last_turn] }\n']) {
        const agent = await new DeclAgentBuilder().fromYaml(file(cache), join(dir, 'cache.yaml')).build();
        await drain(agent.run('hi'));
      }
      const [auto, listed] = server.requests.map(
        (r) => r.body as { system: unknown; messages: { content: unknown }[] },
      );
      expect(auto?.system).toEqual([
        { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
      ]);
      expect(listed?.system).toBe('Be brief.');
      expect(JSON.stringify(listed?.messages.at(-1))).toContain('"cache_control":{"type":"ephemeral"}');
      const bad = await new DeclAgentBuilder()
        .fromYaml(file('  options: { cache: sometimes }\n'), join(dir, 'cache.yaml'))
        .validate();
      expect(bad.errors.map((e) => e.message)).toEqual([
        'must be auto, false, or a list of system, tools, lastTurn',
      ]);
    } finally {
      await server.close();
    }
  });
});
