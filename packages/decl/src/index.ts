export type { AgentPlan, PlannedProvider, PlannedTool } from './builder/agent-plan.js';
export type { BuildOptions, StrictOptions, ValidationReport } from './builder/decl-agent-builder.js';
export { DeclAgentBuilder } from './builder/decl-agent-builder.js';
export type { ModelOverride, NamedConnection } from './builder/plan-model.js';
export type { Diagnostic } from './diagnostics/diagnostic.js';
export { DeclError, formatDiagnostic, formatPath } from './diagnostics/diagnostic.js';
export type { Environment } from './env/resolve-env.js';
export type { AgentExplanation, ExplainedTool, ExplainedWorkflow } from './explain/explain.js';
export type { LoadedDefinition, LoadOptions, PartialDefinition } from './load/load-definition.js';
export {
  loadDefinitionFromFile,
  loadDefinitionFromObject,
  loadDefinitionFromText,
} from './load/load-definition.js';
export type { SourceDocument } from './load/source-document.js';
export { parseYamlSource } from './load/source-document.js';
export { corePlugin } from './registry/core-plugin.js';
export { installedExtensions, loadExtension, locateExtension } from './registry/extension-loader.js';
export type { PackageManager } from './registry/install-hint.js';
export { installCommand, isMissingPackage, packageManager } from './registry/install-hint.js';
export { EXTENSION_PACKAGES, PluginRegistry } from './registry/plugin-registry.js';
export type { ToolFactory } from './resolve/tool-resolver.js';
export type {
  AgentDefinition,
  ContextDecl,
  ModelDecl,
  SubAgentDefinition,
  ToolDecl,
  ToolPolicyDecl,
} from './schema/agent-schema.js';
export { agentDefinitionSchema, agentJsonSchema } from './schema/agent-schema.js';
