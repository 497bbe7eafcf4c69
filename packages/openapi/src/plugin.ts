import { isAbsolute, resolve } from 'node:path';
import {
  ConfigError,
  type Declaration,
  definePlugin,
  type ITool,
  type PluginBuildContext,
  type RafPlugin,
} from '@raf/core';
import { GuardedHttpClient, type HostResolver } from '@raf/web/http';
import { type OpenApiConfig, openapiConfigSchema, parseOpenApiConfig } from './config/openapi-config.js';
import { loadSpec } from './spec/load-spec.js';
import { type ApiOperation, readOperations } from './spec/read-operations.js';
import { gatedTools } from './tool/approval-mode.js';
import { type Credentials, credentialsWarning } from './tool/auth.js';
import { createOperationTool, sanitizeToolName } from './tool/operation-tool.js';
import { checkSpecPath, parseBaseUrl } from './tool/request-url.js';

export interface OpenApiPluginOptions {
  /** How host names are resolved before the SSRF guard checks them (default: the system's). */
  resolver?: HostResolver;
}

/** API answers are read whole into the model's context: 1 MB unless `maxBytes` says otherwise. */
const DEFAULT_MAX_BYTES = 1024 * 1024;

function credentialsOf(config: OpenApiConfig, env: PluginBuildContext['env']): Credentials {
  const connection = config.connection ?? {};
  const apiKey = connection.apiKey ?? (connection.keyEnvVar ? env[connection.keyEnvVar] : undefined);
  if (connection.keyEnvVar && apiKey === undefined) {
    throw new ConfigError(`kind: openapi config.connection.keyEnvVar: ${connection.keyEnvVar} is not set`);
  }
  return {
    ...(apiKey !== undefined && { apiKey }),
    ...(connection.username !== undefined && { username: connection.username }),
    ...(connection.password !== undefined && { password: connection.password }),
    ...(connection.scheme !== undefined && { scheme: connection.scheme }),
    ...(connection.auth && { explicit: connection.auth }),
  };
}

function selectOperations(
  all: ApiOperation[],
  wanted: readonly string[] | undefined,
  where: string,
): ApiOperation[] {
  if (!wanted) return all;
  const byId = new Map(all.filter((op) => op.operationId).map((op) => [op.operationId as string, op]));
  const missing = wanted.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    const known = [...byId.keys()].slice(0, 20).join(', ');
    throw new ConfigError(
      `kind: openapi: ${where} has no operation ${missing.map((m) => `"${m}"`).join(', ')} (operationIds: ${known}${byId.size > 20 ? ', …' : ''})`,
    );
  }
  return wanted.map((id) => byId.get(id) as ApiOperation);
}

function httpClientFor(config: OpenApiConfig, resolver?: HostResolver): GuardedHttpClient {
  try {
    return new GuardedHttpClient({
      maxBytes: config.maxBytes ?? DEFAULT_MAX_BYTES,
      ...(config.allowPrivate && { allowPrivate: config.allowPrivate }),
      ...(config.timeoutMs !== undefined && { timeoutMs: config.timeoutMs }),
      ...(config.maxRedirects !== undefined && { maxRedirects: config.maxRedirects }),
      ...(config.userAgent !== undefined && { userAgent: config.userAgent }),
      ...(resolver && { resolver }),
    });
  } catch (error) {
    throw new ConfigError(`kind: openapi config.allowPrivate: ${(error as Error).message}`, { cause: error });
  }
}

async function openapiTools(
  decl: Declaration,
  context: PluginBuildContext,
  options: OpenApiPluginOptions,
): Promise<ITool[]> {
  const config = parseOpenApiConfig(decl.config);
  const specUrl = (decl.specUrl as string | undefined) ?? config.specUrl;
  if ((specUrl === undefined) === (config.specPath === undefined)) {
    throw new ConfigError(
      'kind: openapi needs exactly one of specUrl (on the entry or in config) and config.specPath',
    );
  }
  const specPath =
    config.specPath &&
    (isAbsolute(config.specPath) ? config.specPath : resolve(context.baseDir, config.specPath));
  // The spec becomes tool schemas and calls on every build: the model must not rewrite it.
  if (specPath) context.protect?.([{ path: specPath, reason: 'OpenAPI spec', readable: true }]);
  const where = specUrl ?? (specPath as string);
  const http = httpClientFor(config, options.resolver);
  const document = await loadSpec(specUrl ? { url: specUrl } : { path: specPath as string }, http, {
    ...(config.allowFileRefs !== undefined && { allowFileRefs: config.allowFileRefs }),
    ...(context.signal && { signal: context.signal }),
  });
  const api = readOperations(document, specUrl);
  const base = config.connection?.endpoint ?? config.baseUrl ?? api.baseUrl;
  if (!base) {
    throw new ConfigError(
      `kind: openapi: ${where} names no server; set config.baseUrl (or connection.endpoint)`,
    );
  }
  const baseUrl = parseBaseUrl(
    base,
    config.connection?.endpoint
      ? 'config.connection.endpoint'
      : config.baseUrl
        ? 'config.baseUrl'
        : `(the server URL of ${where})`,
  );
  const single = decl.operationId as string | undefined;
  const operations = selectOperations(api.operations, single ? [single] : config.operations, where);
  for (const operation of operations) checkSpecPath(operation.path, where);
  const credentials = credentialsOf(config, context.env);
  const warning = credentialsWarning(operations, api.securitySchemes, credentials);
  if (warning) context.warn(`openapi '${decl.name ?? api.title}': ${warning}`);
  const taken = new Set<string>();
  const names = operations.map((operation) => {
    // With one operation picked on the entry (upstream `operation_id`), the entry's name names the tool.
    const base =
      single && decl.name ? decl.name : (operation.operationId ?? `${operation.method}_${operation.path}`);
    let name = sanitizeToolName(config.toolPrefix ? `${config.toolPrefix}_${base}` : base);
    for (let n = 2; taken.has(name); n++) name = sanitizeToolName(`${base}_${n}`);
    taken.add(name);
    return name;
  });
  const gated = gatedTools(
    decl.approvalMode,
    operations.map((operation, index) => ({ operationId: operation.operationId, name: names[index] ?? '' })),
    where,
  );
  return operations.map((operation, index) =>
    createOperationTool(operation, {
      name: names[index] ?? '',
      baseUrl,
      http,
      schemes: api.securitySchemes,
      schemaNames: api.schemaNames,
      credentials,
      ...(config.connection?.headers && { headers: config.connection.headers }),
      ...(gated[index] === true && { requiresApproval: true }),
    }),
  );
}

/**
 * `kind: openapi` for `DeclAgentBuilder.use()`: one tool per operation of an OpenAPI 3.0/3.1 or
 * Swagger 2.0 spec; requests (and the spec itself) go through the `@raf/web` SSRF guard.
 */
export function openapiPlugin(options: OpenApiPluginOptions = {}): RafPlugin {
  return definePlugin({
    specificationVersion: 'v1',
    packageName: '@raf/openapi',
    // A resolver is code: a sub-agent's worker cannot get it (its sub-agents then run inline).
    ...(options.resolver && { options: false as const }),
    toolKinds: { openapi: (decl, context) => openapiTools(decl, context, options) },
    configSchemas: { tools: { openapi: openapiConfigSchema } },
  });
}
