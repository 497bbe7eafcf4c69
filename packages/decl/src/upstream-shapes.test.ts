import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChatClient } from '@raf/client';
import { describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from './builder/decl-agent-builder.js';
import { formatDiagnostic } from './diagnostics/diagnostic.js';

// Issue 11: files in the upstream's own shapes, each with its exact outcome. What is not built yet
// (web) must be named precisely, never fail as a bug of the port.

const dir = fileURLToPath(new URL('../test-fixtures/upstream-shapes', import.meta.url));

const agnesClient = (() => {
  try {
    createChatClient({ provider: 'agnes', model: 'm', apiKey: 'k' } as never);
    return true;
  } catch {
    return false;
  }
})();

const EXPECTED: Record<string, { errors: string[]; warnings: string[] }> = {
  'cli-agent.yaml': {
    errors: [
      // Until @raf/client has the agnes client (the registry knows the provider already).
      ...(agnesClient
        ? []
        : [
            'cli-agent.yaml:6:3 model: unknown model provider "agnes"; use openai, deepseek or custom (any OpenAI-compatible server)',
          ]),
      'cli-agent.yaml:17:11 tools[0].kind: tool kind "web" needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
    ],
    warnings: [
      "cli-agent.yaml:19:11 tools[2].kind: 'run_command' is already in the tools (from tools[1]); one copy is kept",
    ],
  },
  'memory-kinds.yaml': {
    errors: [],
    warnings: [
      'memory-kinds.yaml:9:5 contexts[0]: kind: bundle, name: knowledge-bundle is deprecated; write kind: memory, name: super-brain (with directory: logs/knowledge-bundle to keep this folder)',
      'memory-kinds.yaml:12:5 contexts[1]: kind: memory, name: skill-memory is deprecated; write kind: memory, name: super-brain',
      'memory-kinds.yaml:17:5 contexts[2]: memoryModel: model provider "gguf" needs @raf/llama (pnpm add @raf/llama; builder.use(llamaPlugin())); the curator uses the agent\'s model',
      // Two memory contexts: as upstream, the first's memory tools answer; now it is said.
      "memory-kinds.yaml:17:5 contexts[2]: the memory context 'super-brain' injects a tool named 'memory_save', which the memory context 'knowledge-bundle' (contexts[0]) already provides: only the first is called; keep one of them",
      "memory-kinds.yaml:17:5 contexts[2]: the memory context 'super-brain' injects a tool named 'memory_recall', which the memory context 'knowledge-bundle' (contexts[0]) already provides: only the first is called; keep one of them",
    ],
  },
  // Issue 14: a pipeline of 6 sub-agents and a workflow of actions, built by @raf/workflow.
  'coding-agent.yaml': { errors: [], warnings: [] },
  'workflow.yaml': { errors: [], warnings: [] },
  'hosted.yaml': {
    errors: [
      'hosted.yaml:2:7 kind: parse only: hosted (container) agents need an external deployment; RAF cannot build or run them',
    ],
    warnings: [],
  },
  'manifest.yaml': {
    errors: [
      'manifest.yaml:4:1 template: contains a Manifest; expected a bare AgentDefinition — remove the outer `template` (its fields go at the top level; `parameters` and `resources` are not used)',
    ],
    warnings: [],
  },
  'reference-connection.yaml': {
    errors: [
      "reference-connection.yaml:9:11 model.connection.name: connection 'corp-gateway' is not registered; call builder.withConnection('corp-gateway', { endpoint, apiKey }) before build()",
    ],
    warnings: [],
  },
  'agent.toml': {
    errors: [
      "agent.toml:8:1 contexts[0].config.polcy: unknown key 'polcy' (did you mean 'policy'?): a misspelt policy would leave the default in force",
    ],
    warnings: [],
  },
  'legacy-v1.yaml': {
    errors: [
      'legacy-v1.yaml:2:1 id: this is the retired Agent Declaration Protocol v1 format; rewrite it as a current agent: `name:` instead of `id:`, `model: { id: … }` instead of `model.model`, and `tools: [{ kind: file }]` instead of `type: builtin`',
    ],
    warnings: [],
  },
};

const relative = (line: string) => line.slice(dir.length + 1);

describe('the upstream-shapes corpus', () => {
  it('has an expectation for every file', () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.keys(EXPECTED))('%s gives exactly its expected diagnostics', async (file) => {
    const report = await new DeclAgentBuilder().fromFile(join(dir, file)).withEnvironment({}).validate();
    expect({
      errors: report.errors.map(formatDiagnostic).map(relative),
      warnings: report.warnings.map(formatDiagnostic).map(relative),
    }).toEqual(EXPECTED[file]);
  });

  it('the reference connection validates once the connection is registered', async () => {
    const report = await new DeclAgentBuilder()
      .fromFile(join(dir, 'reference-connection.yaml'))
      .withConnection('corp-gateway', { endpoint: 'http://127.0.0.1:9/v1', apiKey: 'k' })
      .withEnvironment({})
      .validate();
    expect(report).toEqual({ ok: true, errors: [], warnings: [] });
  });
});
