import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, type IContextProvider, toolSuccess } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeclAgentBuilder } from '../builder/decl-agent-builder.js';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';

// Issue 12: `contexts[].config` used to reach the factories unchecked (`polcy: deny` ran under
// `approve`, `maxTokens: "many"` made a NaN budget, `root: 5` became `./5`).

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-config-')));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const LOCAL = 'model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';
const workspace = (config: string) =>
  `name: a\n${LOCAL}\ncontexts:\n  - kind: workspace\n    config: ${config}\n`;
const builder = (yaml: string) => new DeclAgentBuilder().fromYaml(yaml, join(dir, 'agent.yaml'));
const lines = (diagnostics: readonly Parameters<typeof formatDiagnostic>[0][]) =>
  diagnostics.map(formatDiagnostic).map((line) => line.slice(dir.length + 1));

describe('context config schemas', () => {
  it('a misspelt policy is an error even without strict mode, so the workspace never runs under the default', async () => {
    const yaml = workspace('{ polcy: deny }');
    const report = await builder(yaml).validate();
    expect(lines(report.errors)).toEqual([
      "agent.yaml:5:15 contexts[0].config.polcy: unknown key 'polcy' (did you mean 'policy'?): a misspelt policy would leave the default in force",
    ]);
    await expect(builder(yaml).build()).rejects.toThrow(/unknown key 'polcy'/);
  });

  it('another unknown key warns, and is an error in strict mode', async () => {
    const yaml = workspace('{ policy: deny, colour: red }');
    const loose = await builder(yaml).validate();
    expect(loose.ok).toBe(true);
    expect(lines(loose.warnings)).toEqual([
      "agent.yaml:5:29 contexts[0].config.colour: unknown key 'colour'; known: root, roots, policy, allowCommands, network, readableOutside, env, create",
    ]);
    const strict = await builder(yaml).strictMode().validate();
    expect(strict.errors.map((d) => d.path)).toEqual(['contexts[0].config.colour']);
  });

  it('wrong types are errors at the value: root 5, maxTokens "many", network "yes"', async () => {
    const yaml = `name: a\n${LOCAL}\ncontexts:\n  - kind: workspace\n    config: { root: 5, network: "yes" }\n  - kind: compression\n    name: token_budget\n    config: { maxTokens: many }\n`;
    const report = await builder(yaml).validate();
    expect(lines(report.errors)).toEqual([
      'agent.yaml:5:21 contexts[0].config.root: Invalid input: expected string, received number',
      'agent.yaml:5:33 contexts[0].config.network: Invalid input: expected boolean, received string',
      'agent.yaml:8:26 contexts[1].config.maxTokens: Invalid input: expected number, received string',
    ]);
  });

  it('accepts the upstream spellings (snake_case, allowed_commands) and refuses two spellings of one key', async () => {
    const plan = await builder(workspace('{ allowed_commands: [git status], read_only: x }')).validate();
    expect(plan.warnings.map((d) => d.path)).toEqual(['contexts[0].config.read_only']);
    const provider = (
      await builder(workspace('{ allowed_commands: [git status] }')).build()
    ).contextProviders.find((p) => p.kind === 'workspace') as unknown as {
      scope: { properties?: Record<string, unknown> };
    };
    expect(provider.scope.properties?.allowCommands).toEqual(['git status']);
    const twice = await builder(workspace('{ allowCommands: [a], allow_commands: [b] }')).validate();
    expect(lines(twice.errors)).toEqual([
      "agent.yaml:5:35 contexts[0].config.allow_commands: 'allow_commands' and 'allowCommands' are the same setting; keep one",
    ]);
  });
});

describe('extensions get the same checks from their plugin', () => {
  it('a plugin config schema checks tool and context config, and its factories get the parsed config', async () => {
    const seen: unknown[] = [];
    const ping = defineTool({
      name: 'ping',
      description: 'Ping',
      parameters: z.object({}),
      execute: () => toolSuccess('pong'),
    });
    const net = () =>
      new DeclAgentBuilder()
        .fromYaml(
          `name: a\n${LOCAL}\ntools:\n  - kind: net\n    config: { timeout_ms: 50 }\ncontexts:\n  - kind: vault\n    config: { acess: all }\n`,
          join(dir, 'agent.yaml'),
        )
        .use({
          specificationVersion: 'v1',
          packageName: '@acme/net',
          toolKinds: {
            net: (decl) => {
              seen.push(decl.config);
              return [ping];
            },
          },
          contextKinds: {
            vault: (): IContextProvider => ({ name: 'vault', kind: 'vault', onInvoking: () => ({}) }),
          },
          configSchemas: {
            tools: { net: z.object({ timeoutMs: z.number().int().positive() }) },
            contexts: {
              vault: z.object({ access: z.enum(['read', 'all']).optional().meta({ policyBearing: true }) }),
            },
          },
        });
    const report = await net().validate();
    expect(lines(report.errors)).toEqual([
      "agent.yaml:8:15 contexts[0].config.acess: unknown key 'acess' (did you mean 'access'?): a misspelt access would leave the default in force",
    ]);
    expect(seen).toEqual([{ timeoutMs: 50 }]);
  });
});
