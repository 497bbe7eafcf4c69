import { collectAgentResponse } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { describe, expect, it } from 'vitest';
import { sandboxPlugin } from './sandbox-plugin.js';

// Issue 14: a kind: workflow file's ExecuteCode action runs in @raf/sandbox's code_interpreter.
const workflow = (code: string, sandbox = '') => `kind: workflow
name: compute
${sandbox}trigger:
  kind: OnConversationStart
  id: compute
  actions:
    - kind: ExecuteCode
      id: run_code
      language: javascript
      code: ${JSON.stringify(code)}
      output: Local.run
    - kind: SendActivity
      activity:
        text: =Concat("result ", Local.run.result)
`;

describe("a workflow's ExecuteCode", () => {
  it('runs the code in the JavaScript sandbox and hands its result to the next action', async () => {
    const agent = await new DeclAgentBuilder()
      .use(sandboxPlugin())
      .fromYaml(workflow('6 * 7'), 'compute.yaml')
      .buildAgent();
    expect((await collectAgentResponse(agent.run('go'))).text).toBe('result 42');
  });

  it('a failure of the code fails the action, naming it and its line', async () => {
    const agent = await new DeclAgentBuilder()
      .use(sandboxPlugin())
      .fromYaml(workflow('throw new Error("boom")'), 'compute.yaml')
      .buildAgent();
    await expect(collectAgentResponse(agent.run('go'))).rejects.toThrow(
      /ExecuteCode at compute\.yaml:7:\d+: .*boom/,
    );
  });

  it("validate checks the file's sandbox: block at its lines: a misspelt key, a wrong value", async () => {
    const report = async (sandbox: string) => {
      const result = await new DeclAgentBuilder()
        .use(sandboxPlugin())
        .fromYaml(workflow('1', sandbox), 'compute.yaml')
        .validate();
      return [...result.errors, ...result.warnings].map((e) => `${e.severity} ${e.line} ${e.message}`);
    };
    expect(await report('sandbox:\n  timeout_secs: 5\n  memory_limt: 64m\n')).toEqual([
      expect.stringMatching(/^warning 5 unknown key 'memory_limt' \(did you mean 'memoryLimit'\?\)/),
    ]);
    expect(await report('sandbox:\n  memory_limit: lots\n')).toEqual([expect.stringMatching(/^error 4 /)]);
    expect(await report('sandbox: { timeout_secs: 5, memory_limit: 64m }\n')).toEqual([]);
  });

  it('without @raf/sandbox the file fails at the action, naming the package', async () => {
    const report = await new DeclAgentBuilder().fromYaml(workflow('1'), 'compute.yaml').validate();
    expect(report.errors.map((e) => `${e.line} ${e.message}`)).toEqual([
      expect.stringMatching(/^7 .*ExecuteCode needs @raf\/sandbox/),
    ]);
  });
});
