import type { ApiDocument } from './load-spec.js';

type Json = Record<string, unknown>;
export type JsonSchema = Record<string, unknown>;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface OperationParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: JsonSchema;
  description?: string;
  /** Arrays in a query: `true` repeats the key (`?tag=a&tag=b`), `false` joins with commas. */
  explode: boolean;
}

export interface OperationBody {
  mediaType: string;
  schema: JsonSchema;
  required: boolean;
  description?: string;
}

export interface SecurityScheme {
  type: 'apiKey' | 'http' | 'oauth2' | 'openIdConnect';
  /** For `http`: `basic` or `bearer`. */
  scheme?: string;
  in?: 'header' | 'query' | 'cookie';
  name?: string;
}

/** One operation of either spec version, in one shape. */
export interface ApiOperation {
  operationId: string | undefined;
  method: string;
  path: string;
  summary?: string;
  description?: string;
  parameters: OperationParameter[];
  body?: OperationBody;
  /** Alternatives; each names the schemes that must all be satisfied. Empty: no auth needed. */
  security: Record<string, unknown>[];
}

export interface ApiModel {
  title: string;
  /** Each named schema (`components.schemas`, `definitions`) by its object, to name recursion. */
  schemaNames: WeakMap<object, string>;
  /** The API's base URL from the spec, or undefined when it names none. */
  baseUrl: string | undefined;
  operations: ApiOperation[];
  securitySchemes: Record<string, SecurityScheme>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const object = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() ? value.trim() : undefined;

/** The media type a body is sent as: JSON when offered, then forms, then whatever comes first. */
function pickMediaType(types: string[]): string | undefined {
  return (
    types.find((t) => t === 'application/json') ??
    types.find((t) => /^application\/[\w.-]+\+json$/.test(t) || t.endsWith('/json')) ??
    types.find((t) => t === 'application/x-www-form-urlencoded') ??
    types.find((t) => t.startsWith('text/')) ??
    types[0]
  );
}

/** Parameters of the path item, overridden by the operation's own of the same name and place. */
function mergeParameters(shared: unknown, own: unknown): Json[] {
  const merged = new Map<string, Json>();
  for (const list of [shared, own]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const parameter = object(item);
      merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
    }
  }
  return [...merged.values()];
}

// ——— OpenAPI 3.x ———

function serverUrl(doc: Json, specUrl: string | undefined): string | undefined {
  const server = Array.isArray(doc.servers) ? object(doc.servers[0]) : undefined;
  let url = text(server?.url);
  if (!url) return specUrl ? new URL('/', specUrl).href : undefined;
  for (const [name, variable] of Object.entries(object(server?.variables))) {
    url = url.replaceAll(`{${name}}`, String(object(variable).default ?? ''));
  }
  if (/^https?:\/\//i.test(url)) return url;
  return specUrl ? new URL(url, specUrl).href : undefined;
}

function readOpenApi3(doc: Json, specUrl: string | undefined): Omit<ApiModel, 'schemaNames'> {
  const operations: ApiOperation[] = [];
  for (const [path, item] of Object.entries(object(doc.paths))) {
    const pathItem = object(item);
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!op) continue;
      const operation = object(op);
      const parameters = mergeParameters(pathItem.parameters, operation.parameters)
        .filter((p) => ['path', 'query', 'header', 'cookie'].includes(String(p.in)))
        .map((p): OperationParameter => {
          const style = text(p.style);
          return {
            name: String(p.name),
            in: p.in as ParameterLocation,
            required: p.in === 'path' || p.required === true,
            schema: object(p.schema ?? pickContentSchema(p.content)),
            ...(text(p.description) && { description: text(p.description) }),
            explode: typeof p.explode === 'boolean' ? p.explode : style === undefined || style === 'form',
          };
        });
      const requestBody = object(operation.requestBody);
      const content = object(requestBody.content);
      const mediaType = pickMediaType(Object.keys(content));
      operations.push({
        operationId: text(operation.operationId),
        method: method.toUpperCase(),
        path,
        ...(text(operation.summary) && { summary: text(operation.summary) }),
        ...(text(operation.description) && { description: text(operation.description) }),
        parameters,
        ...(mediaType && {
          body: {
            mediaType,
            schema: object(object(content[mediaType]).schema),
            required: requestBody.required === true,
            ...(text(requestBody.description) && { description: text(requestBody.description) }),
          },
        }),
        security: (Array.isArray(operation.security) ? operation.security : (doc.security ?? [])) as Json[],
      });
    }
  }
  const schemes: Record<string, SecurityScheme> = {};
  for (const [name, scheme] of Object.entries(object(object(doc.components).securitySchemes))) {
    const s = object(scheme);
    schemes[name] = {
      type: s.type as SecurityScheme['type'],
      ...(text(s.scheme) && { scheme: text(s.scheme)?.toLowerCase() }),
      ...(text(s.in) && { in: s.in as SecurityScheme['in'] }),
      ...(text(s.name) && { name: text(s.name) }),
    };
  }
  return {
    title: text(object(doc.info).title) ?? 'API',
    baseUrl: serverUrl(doc, specUrl),
    operations,
    securitySchemes: schemes,
  };
}

function pickContentSchema(content: unknown): unknown {
  const media = object(content);
  const type = pickMediaType(Object.keys(media));
  return type ? object(media[type]).schema : undefined;
}

// ——— Swagger 2.0 ———

/** A Swagger 2 non-body parameter keeps its schema keywords on the parameter itself. */
const SCHEMA_KEYS = [
  'type',
  'format',
  'items',
  'enum',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
];

function swaggerSchema(parameter: Json): JsonSchema {
  const schema: JsonSchema = {};
  for (const key of SCHEMA_KEYS) if (parameter[key] !== undefined) schema[key] = parameter[key];
  if (schema.type === 'file') return { type: 'string', description: 'file content' };
  return schema;
}

function swaggerBaseUrl(doc: Json, specUrl: string | undefined): string | undefined {
  const schemes = Array.isArray(doc.schemes) ? (doc.schemes as string[]) : [];
  const from = specUrl ? new URL(specUrl) : undefined;
  const scheme = schemes.includes('https')
    ? 'https'
    : (schemes[0] ?? from?.protocol.replace(':', '') ?? 'https');
  const host = text(doc.host) ?? from?.host;
  if (!host) return undefined;
  return `${scheme}://${host}${text(doc.basePath) ?? ''}`;
}

function readSwagger2(doc: Json, specUrl: string | undefined): Omit<ApiModel, 'schemaNames'> {
  const operations: ApiOperation[] = [];
  const consumes = Array.isArray(doc.consumes) ? (doc.consumes as string[]) : [];
  for (const [path, item] of Object.entries(object(doc.paths))) {
    const pathItem = object(item);
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!op) continue;
      const operation = object(op);
      const all = mergeParameters(pathItem.parameters, operation.parameters);
      const parameters: OperationParameter[] = all
        .filter((p) => ['path', 'query', 'header'].includes(String(p.in)))
        .map((p) => ({
          name: String(p.name),
          in: p.in as ParameterLocation,
          required: p.in === 'path' || p.required === true,
          schema: swaggerSchema(p),
          ...(text(p.description) && { description: text(p.description) }),
          explode: p.collectionFormat === 'multi',
        }));
      const mediaTypes = Array.isArray(operation.consumes) ? (operation.consumes as string[]) : consumes;
      const bodyParameter = all.find((p) => p.in === 'body');
      const form = all.filter((p) => p.in === 'formData');
      let body: OperationBody | undefined;
      if (bodyParameter) {
        body = {
          mediaType:
            pickMediaType(mediaTypes.filter((t) => !t.startsWith('multipart/'))) ?? 'application/json',
          schema: object(bodyParameter.schema),
          required: bodyParameter.required === true,
          ...(text(bodyParameter.description) && { description: text(bodyParameter.description) }),
        };
      } else if (form.length > 0) {
        const multipart = mediaTypes.includes('multipart/form-data') && form.some((p) => p.type === 'file');
        body = {
          mediaType: multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded',
          schema: {
            type: 'object',
            properties: Object.fromEntries(
              form.map((p) => [
                String(p.name),
                { ...swaggerSchema(p), ...(text(p.description) && { description: p.description }) },
              ]),
            ),
            required: form.filter((p) => p.required === true).map((p) => String(p.name)),
          },
          required: form.some((p) => p.required === true),
        };
      }
      operations.push({
        operationId: text(operation.operationId),
        method: method.toUpperCase(),
        path,
        ...(text(operation.summary) && { summary: text(operation.summary) }),
        ...(text(operation.description) && { description: text(operation.description) }),
        parameters,
        ...(body && { body }),
        security: (Array.isArray(operation.security) ? operation.security : (doc.security ?? [])) as Json[],
      });
    }
  }
  const schemes: Record<string, SecurityScheme> = {};
  for (const [name, definition] of Object.entries(object(doc.securityDefinitions))) {
    const d = object(definition);
    if (d.type === 'basic') schemes[name] = { type: 'http', scheme: 'basic' };
    else if (d.type === 'apiKey')
      schemes[name] = { type: 'apiKey', in: d.in as 'header', name: String(d.name) };
    else if (d.type === 'oauth2') schemes[name] = { type: 'oauth2' };
  }
  return {
    title: text(object(doc.info).title) ?? 'API',
    baseUrl: swaggerBaseUrl(doc, specUrl),
    operations,
    securitySchemes: schemes,
  };
}

function schemaNames(document: ApiDocument): WeakMap<object, string> {
  const names = new WeakMap<object, string>();
  const named = document.swagger === '2.0' ? document.definitions : object(document.components).schemas;
  for (const [name, schema] of Object.entries(object(named)))
    if (schema && typeof schema === 'object') names.set(schema, name);
  return names;
}

/** Reads the operations of a dereferenced OpenAPI 3.x or Swagger 2.0 document. */
export function readOperations(document: ApiDocument, specUrl?: string): ApiModel {
  const read = document.swagger === '2.0' ? readSwagger2(document, specUrl) : readOpenApi3(document, specUrl);
  return { ...read, schemaNames: schemaNames(document) };
}
