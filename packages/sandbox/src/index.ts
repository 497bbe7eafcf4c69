export type { CodeRun, LimitName } from './code-run.js';
export { formatByteSize, parseByteSize } from './config/byte-size.js';
export type { CodeLanguage, SafeParseSandboxConfig, SandboxConfig } from './config/sandbox-config.js';
export {
  mergeSandboxConfig,
  parseSandboxConfig,
  safeParseSandboxConfig,
  sandboxConfigSchema,
} from './config/sandbox-config.js';
export { SANDBOX_DEFAULTS } from './config/sandbox-settings.js';
export type { SandboxPluginOptions } from './sandbox-plugin.js';
export { sandboxPlugin } from './sandbox-plugin.js';
export type { CodeInterpreterOptions, CodeInterpreterTool } from './tool/code-interpreter.js';
export {
  CODE_INTERPRETER,
  CODE_INTERPRETER_MANIFEST,
  createCodeInterpreterTool,
} from './tool/code-interpreter.js';
