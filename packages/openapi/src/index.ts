export type { OpenApiConfig, OpenApiConnection } from './config/openapi-config.js';
export {
  openapiConfigSchema,
  openapiConnectionSchema,
  parseOpenApiConfig,
  safeParseOpenApiConfig,
} from './config/openapi-config.js';
export type { OpenApiPluginOptions } from './plugin.js';
export { openapiPlugin } from './plugin.js';
export type { ApiDocument, SpecSource } from './spec/load-spec.js';
export { loadSpec } from './spec/load-spec.js';
export type {
  ApiModel,
  ApiOperation,
  OperationBody,
  OperationParameter,
  SecurityScheme,
} from './spec/read-operations.js';
export { readOperations } from './spec/read-operations.js';
export type { Credentials } from './tool/auth.js';
export type { OperationToolOptions } from './tool/operation-tool.js';
export { createOperationTool, sanitizeToolName } from './tool/operation-tool.js';
