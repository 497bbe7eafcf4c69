import { rm } from 'node:fs/promises';
import { ConfigError, type PluginBuildContext } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxPlugin } from './sandbox-plugin.js';
import { call, pathWithout } from './test-support/harness.js';
import type { CodeInterpreterTool } from './tool/code-interpreter.js';

const header = `kind: prompt
name: coder
model: { id: gpt-4o-mini, provider: openai, connection: { apiKey: test } }
`;

const built: CodeInterpreterTool[] = [];
afterEach(async () => {
  await Promise.all(built.splice(0).map((tool) => tool.dispose()));
});

async function buildTool(yaml: string): Promise<CodeInterpreterTool> {
  const agent = await new DeclAgentBuilder()
    .fromYaml(header + yaml)
    .use(sandboxPlugin())
    .build();
  const tool = agent.tools.find((t) => t.name === 'code_interpreter') as CodeInterpreterTool;
  built.push(tool);
  return tool;
}

describe('sandboxPlugin', () => {
  it('expands a nameless kind: code to code_interpreter: builtin, sequential, proxied from workers', async () => {
    const plan = await new DeclAgentBuilder()
      .fromYaml(`${header}tools:\n  - kind: code\n`)
      .use(sandboxPlugin())
      .explain();
    expect(plan.tools).toEqual([
      {
        name: 'code_interpreter',
        kind: 'code',
        source: 'static',
        workspace: null,
        gated: false,
        approval: 'never',
        executionMode: 'sequential',
        route: 'main-process-proxy',
      },
    ]);
    expect(plan.toolLoop).toBe(true);
  });

  it('merges the agent-level sandbox: defaults under the tool config (the tool wins; both spellings)', async () => {
    const tool = await buildTool(`sandbox:
  timeout_secs: 9
  memoryLimit: 128m
  default_language: javascript
  output_limit: 64k
tools:
  - kind: code
    config:
      timeoutSecs: 2
      output_limit: 32k
`);
    expect(tool.defaultLanguage).toBe('javascript');
    const result = await call(tool, { code: '1 + 1' });
    expect(result.data.result).toBe(2);
    expect(result.data.limits).toMatchObject({ timeout_secs: 2, memory_limit: '128m', output_limit: '32k' });
    expect(tool.description).toContain('Limits per call: 2 s, 128m memory, 32k output.');
  });

  it('reports a bad setting with the field as written, in validate()', async () => {
    const report = await new DeclAgentBuilder()
      .fromYaml(
        `${header}sandbox:\n  pids_limit: -1\ntools:\n  - kind: code\n    config:\n      memory_limit: lots\n`,
      )
      .use(sandboxPlugin())
      .validate();
    expect(report.ok).toBe(false);
    // Each at its own line, under the field as written (both checked: one does not hide the other).
    expect(report.errors.map((e) => `${e.line} ${e.path}: ${e.message}`)).toEqual([
      '5 sandbox.pids_limit: Too small: expected number to be >=1',
      '9 tools[0].config.memory_limit: expected a size like 512m, 1g or a number of bytes; got "lots"',
    ]);
  });

  it('says which package a YAML with kind: code needs when the plugin is not registered', async () => {
    const report = await new DeclAgentBuilder().fromYaml(`${header}tools:\n  - kind: code\n`).validate();
    expect(report.errors[0]?.message).toBe(
      'tool kind "code" needs @raf/sandbox (pnpm add @raf/sandbox; builder.use(sandboxPlugin()))',
    );
  });

  it('warns about settings it cannot honour, and refuses another tool name', async () => {
    const report = await new DeclAgentBuilder()
      .fromYaml(
        `${header}sandbox: { backend: docker, cpus: "2", image: python:3.12 }\ntools:\n  - kind: code\n    name: code_interpreter\n`,
      )
      .use(sandboxPlugin())
      .validate();
    const warnings = report.warnings.map((w) => w.message);
    // An unknown key is named at its line by validate (as in any tool's config), and left out.
    expect(report.warnings).toContainEqual(
      expect.objectContaining({
        path: 'sandbox.image',
        message: expect.stringMatching(/^unknown key 'image'/),
      }),
    );
    expect(warnings).toContain(
      "code_interpreter: backend 'docker' is not available in @raf/sandbox; using 'process' (bubblewrap)",
    );
    expect(warnings).toContain(
      'code_interpreter: cpus is not enforced (it needs cgroups); timeout_secs bounds CPU time',
    );
    const named = await new DeclAgentBuilder()
      .fromYaml(`${header}tools:\n  - kind: code\n    name: run_python\n`)
      .use(sandboxPlugin())
      .validate();
    expect(named.errors[0]?.message).toBe('kind: code has one tool, code_interpreter (got "run_python")');
  });

  it('puts what is disabled on this machine into explain() warnings (a PATH without bwrap)', async () => {
    const pathEnv = await pathWithout('bwrap');
    try {
      const plan = await new DeclAgentBuilder()
        .fromYaml(`${header}tools:\n  - kind: code\n`)
        .use(sandboxPlugin({ pathEnv }))
        .explain();
      expect(plan.warnings).toEqual([
        'agent.yaml:5:5 tools[0]: code_interpreter: python is disabled: bubblewrap (bwrap) is not installed; set unconfined: true to run it without isolation',
        'agent.yaml:5:5 tools[0]: code_interpreter: shell is disabled: bubblewrap (bwrap) is not installed; set unconfined: true to run it without isolation',
      ]);
    } finally {
      await rm(pathEnv, { recursive: true, force: true });
    }
  });

  it('the factory throws a ConfigError naming the field (for code that calls it directly)', async () => {
    const factory = sandboxPlugin().toolKinds?.code;
    const context: PluginBuildContext = {
      baseDir: '.',
      env: process.env,
      warn: () => {},
      agentDefaults: { sandbox: { timeout_secs: 'soon' } },
    };
    const built = Promise.resolve(factory?.({ kind: 'code' }, context));
    await expect(built).rejects.toThrow(ConfigError);
    await expect(built).rejects.toThrow(
      'sandbox.timeout_secs: Invalid input: expected number, received string',
    );
  });
});
