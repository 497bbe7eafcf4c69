import {
  ConfigError,
  type Declaration,
  definePlugin,
  type PluginBuildContext,
  type RafPlugin,
} from '@raf/core';
import {
  mergeSandboxConfig,
  type SandboxConfig,
  safeParseSandboxConfig,
  sandboxConfigSchema,
} from './config/sandbox-config.js';
import {
  CODE_INTERPRETER,
  CODE_INTERPRETER_MANIFEST,
  type CodeInterpreterTool,
  createCodeInterpreterTool,
} from './tool/code-interpreter.js';

export interface SandboxPluginOptions {
  /** The PATH searched for bwrap, prlimit, setpriv, python3 and bash (default: the build's env PATH). */
  pathEnv?: string;
}

/** Both maps are checked before either fails, so one `validate` names every bad field. */
function parseBoth(defaults: unknown, own: unknown, context: PluginBuildContext): SandboxConfig {
  const results = [safeParseSandboxConfig(defaults, 'sandbox'), safeParseSandboxConfig(own, 'config')];
  const errors = results.flatMap((r) => (r.success ? [] : [r.error]));
  if (errors.length > 0) throw new ConfigError(errors.join('; '));
  const [base, tool] = results.map((r) => {
    if (!r.success) return {};
    for (const key of r.unknownKeys)
      context.warn(`code_interpreter: unknown sandbox setting '${key}' ignored`);
    return r.config;
  });
  return mergeSandboxConfig(base ?? {}, tool ?? {});
}

async function buildCode(
  decl: Declaration,
  context: PluginBuildContext,
  options: SandboxPluginOptions,
): Promise<CodeInterpreterTool[]> {
  const name = decl.name ?? CODE_INTERPRETER;
  if (name !== CODE_INTERPRETER)
    throw new ConfigError(`kind: code has one tool, ${CODE_INTERPRETER} (got "${name}")`);
  const config = parseBoth(context.agentDefaults?.sandbox, decl.config, context);
  if (config.backend && config.backend !== 'process' && config.backend !== 'wasm')
    context.warn(
      `code_interpreter: backend '${config.backend}' is not available in @raf/sandbox; using 'process' (bubblewrap)`,
    );
  if (config.cpus !== undefined)
    context.warn('code_interpreter: cpus is not enforced (it needs cgroups); timeout_secs bounds CPU time');
  const pathEnv = options.pathEnv ?? context.env.PATH ?? '';
  const tool = await createCodeInterpreterTool(config, { pathEnv });
  for (const note of tool.notes) context.warn(`code_interpreter: ${note}`);
  return [tool];
}

/**
 * `kind: code` → `code_interpreter` (SPEC §9). Register it with `builder.use(sandboxPlugin())`;
 * nothing registers on import. The agent's `sandbox:` map gives defaults; a tool's `config` wins.
 */
export function sandboxPlugin(options: SandboxPluginOptions = {}): RafPlugin {
  return definePlugin({
    specificationVersion: 'v1',
    packageName: '@raf/sandbox',
    // What a sub-agent's worker makes the plugin again with.
    ...(options.pathEnv !== undefined && { options: { pathEnv: options.pathEnv } }),
    toolKinds: { code: (decl, context) => buildCode(decl, context, options) },
    toolExpansions: { code: [CODE_INTERPRETER] },
    toolManifests: { [CODE_INTERPRETER]: CODE_INTERPRETER_MANIFEST },
    // A tool's `config:` and a workflow's `sandbox:` block are checked at their lines by `validate`.
    configSchemas: { tools: { code: sandboxConfigSchema } },
  });
}
