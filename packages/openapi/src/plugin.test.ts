import type { ITool, PluginBuildContext, ToolResult } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiConfigSchema } from './config/openapi-config.js';
import { openapiPlugin } from './plugin.js';
import {
  type ApiServer,
  PETSTORE_API_KEY,
  PETSTORE_TOKEN,
  startApiServer,
  TRACKER_READ_KEY,
  TRACKER_STAFF,
} from './test-support/api-server.js';

let server: ApiServer;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

const warnings: string[] = [];
const context = (env: Record<string, string> = {}): PluginBuildContext => ({
  baseDir: new URL('./test-support/fixtures/', import.meta.url).pathname,
  env,
  warn: (message) => warnings.push(message),
});

async function build(
  entry: Record<string, unknown>,
  env?: Record<string, string>,
): Promise<Map<string, ITool>> {
  const tools = await openapiPlugin().toolKinds!.openapi!({ kind: 'openapi', ...entry }, context(env));
  return new Map(tools.map((t) => [t.name, t]));
}
const call = (tool: ITool | undefined, args: Record<string, unknown>): Promise<ToolResult> =>
  tool!.execute(args, { signal: new AbortController().signal, callId: 'c1' });
const last = () => server.requests.at(-1)!;

describe('kind: openapi on the Petstore (OpenAPI 3.0, YAML, relative server URL)', () => {
  let tools: Map<string, ITool>;
  beforeAll(async () => {
    tools = await build(
      {
        name: 'petstore',
        specUrl: `${server.origin}/openapi.yaml`,
        config: {
          allowPrivate: ['127.0.0.1'],
          connection: { apiKey: PETSTORE_TOKEN, scheme: 'petstore_auth' },
        },
      },
      {},
    );
  });

  it('makes one tool per operation, named by operationId, described by summary and route', () => {
    expect([...tools.keys()]).toEqual([
      'updatePet',
      'addPet',
      'findPetsByStatus',
      'findPetsByTags',
      'getPetById',
      'updatePetWithForm',
      'deletePet',
      'getInventory',
      'placeOrder',
      'getOrderById',
      'deleteOrder',
      'loginUser',
      'getUserByName',
    ]);
    expect(tools.get('getPetById')!.description).toBe(
      'Find pet by ID.\n\nReturns a single pet.\n\n(GET /pet/{petId})',
    );
  });

  it('turns parameters and the JSON body into the JSON Schema the model fills ($refs resolved, readOnly and examples gone)', () => {
    expect(tools.get('getPetById')!.parameters).toEqual({
      type: 'object',
      properties: { petId: { type: 'integer', format: 'int64', description: 'ID of pet to return' } },
      required: ['petId'],
      additionalProperties: false,
    });
    const addPet = tools.get('addPet')!.parameters as { properties: { body: Record<string, unknown> } };
    expect(addPet.properties.body).toMatchObject({
      type: 'object',
      required: ['name', 'photoUrls'],
      properties: {
        id: { type: 'integer', format: 'int64' },
        category: {
          type: 'object',
          properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } },
        },
        tags: { type: 'array', items: { type: 'object' } },
        status: { type: 'string', enum: ['available', 'pending', 'sold'] },
      },
      description: 'Create a new pet in the store',
    });
    expect(JSON.stringify(addPet)).not.toMatch(/"example"|"xml"|\$ref/);
    const order = tools.get('placeOrder')!.parameters as { properties: { body: { properties: object } } };
    expect(Object.keys(order.properties.body.properties)).toEqual([
      'petId',
      'quantity',
      'shipDate',
      'status',
      'complete',
    ]);
  });

  it('calls the right paths with the token as a bearer (connection.scheme: petstore_auth, an oauth2 scheme)', async () => {
    const found = await call(tools.get('findPetsByStatus'), { status: 'available' });
    expect(found).toMatchObject({
      ok: true,
      data: { status: 200, body: [{ name: 'doggie' }, { name: 'goldie' }] },
    });
    expect(last()).toMatchObject({
      method: 'GET',
      path: '/api/v3/pet/findByStatus',
      query: { status: ['available'] },
      headers: { authorization: `Bearer ${PETSTORE_TOKEN}` },
    });
    await call(tools.get('findPetsByTags'), { tags: ['tag1', 'tag2'] });
    expect(last().query).toEqual({ tags: ['tag1', 'tag2'] });

    const added = await call(tools.get('addPet'), {
      body: { name: 'rex', photoUrls: [], status: 'pending' },
    });
    expect(added).toMatchObject({ ok: true, data: { body: { id: 4, name: 'rex', status: 'pending' } } });
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/api/v3/pet',
      headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(last().body)).toEqual({ name: 'rex', photoUrls: [], status: 'pending' });

    await call(tools.get('updatePetWithForm'), { petId: 4, name: 'rex the second' });
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/api/v3/pet/4',
      query: { name: ['rex the second'] },
    });
    expect(await call(tools.get('getPetById'), { petId: 4 })).toMatchObject({
      ok: true,
      data: { body: { name: 'rex the second' } },
    });
    await call(tools.get('deletePet'), { petId: 4, api_key: 'header-value' });
    expect(last()).toMatchObject({
      method: 'DELETE',
      path: '/api/v3/pet/4',
      headers: { api_key: 'header-value' },
    });
  });

  it('reports non-2xx answers as tool errors with the status and the body', async () => {
    expect(await call(tools.get('getPetById'), { petId: 99 })).toEqual({
      ok: false,
      error:
        'getPetById: HTTP 404 from GET /pet/{petId}: {"code":1,"type":"error","message":"Pet not found"}',
      data: { status: 404, body: '{"code":1,"type":"error","message":"Pet not found"}' },
    });
    // getInventory takes only api_key, not the connection's scheme: nothing is sent, the server refuses.
    expect(await call(tools.get('getInventory'), {})).toMatchObject({ ok: false, data: { status: 401 } });
    expect(last().headers.authorization).toBeUndefined();
  });

  it('sends an API key in the header the spec names, and only to operations that ask for one', async () => {
    const keyed = await build({
      specUrl: `${server.origin}/openapi.yaml`,
      config: {
        allowPrivate: ['127.0.0.1'],
        operations: ['getInventory', 'loginUser'],
        connection: { apiKey: PETSTORE_API_KEY },
      },
    });
    expect([...keyed.keys()]).toEqual(['getInventory', 'loginUser']);
    expect(await call(keyed.get('getInventory'), {})).toEqual({
      ok: true,
      data: { status: 200, body: { available: 2, pending: 1 } },
    });
    expect(last().headers.api_key).toBe(PETSTORE_API_KEY);
    await call(keyed.get('loginUser'), { username: 'user1', password: 'pw' });
    expect(last().headers.api_key).toBeUndefined();
    expect(last().query).toEqual({ username: ['user1'], password: ['pw'] });
  });
});

describe('kind: openapi on a Swagger 2.0 spec (host from the spec URL, basePath, formData, circular $refs)', () => {
  let tools: Map<string, ITool>;
  beforeAll(async () => {
    tools = await build(
      {
        name: 'tracker',
        specUrl: `${server.origin}/swagger.json`,
        config: {
          allowPrivate: ['127.0.0.1'],
          connection: {
            key_env_var: 'TRACKER_KEY',
            username: TRACKER_STAFF.username,
            password: TRACKER_STAFF.password,
          },
        },
      },
      { TRACKER_KEY: TRACKER_READ_KEY },
    );
  });

  it('reads operations, Swagger parameter schemas and a circular schema', () => {
    expect([...tools.keys()]).toEqual(['listTickets', 'createTicket', 'getTicket', 'addComment']);
    const list = tools.get('listTickets')!.parameters as { properties: Record<string, unknown> };
    expect(list.properties).toEqual({
      state: { type: 'string', enum: ['open', 'closed'], description: 'Only tickets in this state' },
      labels: {
        type: 'array',
        items: { type: 'string' },
        description: 'Tickets carrying all of these labels',
      },
      assignee: { type: 'array', items: { type: 'string' } },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    const create = tools.get('createTicket')!.parameters as {
      properties: { body: { properties: Record<string, unknown> } };
    };
    expect(create.properties.body.properties.parent).toEqual({
      type: 'object',
      description: 'A ticket and the ticket it was split from',
      properties: {
        id: { type: 'integer', format: 'int64' },
        splitFrom: { description: 'recursive: another TicketRef (not expanded)' },
      },
    });
    expect(() => JSON.stringify(tools.get('createTicket')!.parameters)).not.toThrow();
  });

  it('reads with the key in the query string, joins csv arrays and repeats multi arrays', async () => {
    const listed = await call(tools.get('listTickets'), {
      state: 'open',
      labels: ['bug', 'auth'],
      assignee: ['ana', 'bo'],
    });
    expect(listed).toMatchObject({ ok: true, data: { body: [{ id: 7, title: 'Login page times out' }] } });
    expect(last()).toMatchObject({
      method: 'GET',
      path: '/v1/tickets',
      query: { state: ['open'], labels: ['bug,auth'], assignee: ['ana', 'bo'], key: [TRACKER_READ_KEY] },
    });
    expect(last().headers.authorization).toBeUndefined();
    expect(await call(tools.get('getTicket'), { ticketId: 7 })).toMatchObject({
      ok: true,
      data: { body: { id: 7 } },
    });
    expect(last().path).toBe('/v1/tickets/7');
  });

  it('writes with basic auth: a JSON body with a header, and a form body', async () => {
    const created = await call(tools.get('createTicket'), {
      'X-Request-Id': 'req-1',
      body: { title: 'Export fails on Safari', labels: ['bug'] },
    });
    expect(created).toMatchObject({ ok: true, data: { status: 201, body: { id: 8, state: 'open' } } });
    const basic = `Basic ${Buffer.from('staff:hunter2').toString('base64')}`;
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/v1/tickets',
      headers: { authorization: basic, 'x-request-id': 'req-1' },
    });
    expect(last().query).toEqual({});
    const commented = await call(tools.get('addComment'), {
      ticketId: 8,
      body: { text: 'Seen on 17.2 too', internal: true },
    });
    expect(commented).toMatchObject({
      ok: true,
      data: { body: { text: 'Seen on 17.2 too', internal: true } },
    });
    expect(last()).toMatchObject({
      path: '/v1/tickets/8/comments',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: 'text=Seen+on+17.2+too&internal=true',
    });
  });

  it('keeps keys out of error messages', async () => {
    const hasty = await build({
      specUrl: `${server.origin}/swagger.json`,
      operationId: 'listTickets',
      name: 'tickets',
      config: {
        allowPrivate: ['127.0.0.1'],
        baseUrl: 'http://127.0.0.1:1/v1',
        connection: { apiKey: 'sekret-key' },
      },
    });
    expect([...hasty.keys()]).toEqual(['tickets']);
    const failed = await call(hasty.get('tickets'), {});
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/^tickets: GET \/tickets failed: /);
    expect(failed.error).not.toContain('sekret-key');
  });
});

describe('kind: openapi build errors and the guard', () => {
  it('names what is wrong', async () => {
    const specUrl = `${server.origin}/openapi.yaml`;
    await expect(build({ config: {} })).rejects.toThrow('needs exactly one of specUrl');
    await expect(build({ specUrl, config: { specPath: 'x.yaml' } })).rejects.toThrow(
      'needs exactly one of specUrl',
    );
    await expect(
      build({ specUrl, config: { allowPrivate: ['127.0.0.1'], operations: ['getPet'] } }),
    ).rejects.toThrow(
      `kind: openapi: ${specUrl} has no operation "getPet" (operationIds: updatePet, addPet,`,
    );
    await expect(build({ specUrl, config: { operations: 'getPetById' } })).rejects.toThrow(
      'kind: openapi config: operations: Invalid input: expected array, received string',
    );
    await expect(
      build({ specUrl: `${server.origin}/missing.yaml`, config: { allowPrivate: ['127.0.0.1'] } }),
    ).rejects.toThrow(`kind: openapi: cannot load the spec ${server.origin}/missing.yaml: HTTP 404`);
    await expect(
      build({ specUrl, config: { allowPrivate: ['127.0.0.1'], connection: { keyEnvVar: 'NOPE' } } }),
    ).rejects.toThrow('config.connection.keyEnvVar: NOPE is not set');
  });

  it('fetches the spec through the SSRF guard', async () => {
    await expect(build({ specUrl: `${server.origin}/openapi.yaml` })).rejects.toThrow(
      /cannot load the spec .*refused http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/,
    );
  });

  it('warns at build time when the connection cannot satisfy the spec', async () => {
    warnings.length = 0;
    await build({
      name: 'pets',
      specUrl: `${server.origin}/openapi.yaml`,
      config: { allowPrivate: ['127.0.0.1'] },
    });
    expect(warnings).toEqual([
      "openapi 'pets': 8 operation(s) need credentials the connection does not supply (updatePet, addPet, findPetsByStatus, …): set connection.apiKey or username/password",
    ]);
  });

  it('builds from YAML through DeclAgentBuilder, with approvalMode: always gating every tool', async () => {
    const yaml = `kind: prompt
name: pets
model: { id: m, provider: openai, connection: { apiKey: sk-test } }
tools:
  - kind: openapi
    name: petstore
    specUrl: ${server.origin}/openapi.yaml
    approvalMode: always
    config:
      operations: [getPetById, findPetsByStatus]
      allowPrivate: [127.0.0.1]
      connection: { apiKey: $PETSTORE_TOKEN }
`;
    const plan = await new DeclAgentBuilder()
      .fromYaml(yaml)
      .withEnvironment({ PETSTORE_TOKEN })
      .use(openapiPlugin())
      .explain();
    expect(plan.tools.map((t) => [t.name, t.kind, t.gated, t.executionMode, t.route])).toEqual([
      ['getPetById', 'openapi', true, 'parallel', 'main-process-proxy'],
      ['findPetsByStatus', 'openapi', true, 'parallel', 'main-process-proxy'],
    ]);
    expect(openapiConfigSchema.safeParse({ spec_url: 'x', operations: ['a'] }).success).toBe(true);
  });

  it('approval_mode per tool gates the listed operations; a name no operation has is an error', async () => {
    const entry = (mode: string) => `kind: prompt
name: pets
model: { id: m, provider: openai, connection: { apiKey: sk-test } }
tools:
  - kind: openapi
    name: petstore
    specUrl: ${server.origin}/openapi.yaml
    approval_mode: ${mode}
    config:
      operations: [getPetById, findPetsByStatus]
      allowPrivate: [127.0.0.1]
      connection: { apiKey: $PETSTORE_TOKEN }
`;
    const explain = (mode: string) =>
      new DeclAgentBuilder()
        .fromYaml(entry(mode))
        .withEnvironment({ PETSTORE_TOKEN })
        .use(openapiPlugin())
        .explain();
    // Before, only the string `always` was read: `{ always: [...] }` ran every call unasked.
    const always = await explain('{ always: [findPetsByStatus] }');
    expect(always.tools.map((t) => [t.name, t.gated])).toEqual([
      ['getPetById', false],
      ['findPetsByStatus', true],
    ]);
    const never = await explain('{ never: [getPetById] }');
    expect(never.tools.map((t) => [t.name, t.gated])).toEqual([
      ['getPetById', false],
      ['findPetsByStatus', true],
    ]);
    const report = await new DeclAgentBuilder()
      .fromYaml(entry('{ always: [findPetByStatus] }'), 'agent.yaml')
      .withEnvironment({ PETSTORE_TOKEN })
      .use(openapiPlugin())
      .validate();
    expect(report.errors.map((e) => [e.line, e.message])).toEqual([
      [
        6,
        expect.stringContaining(`approval_mode: ${server.origin}/openapi.yaml has no tool "findPetByStatus"`),
      ],
    ]);
  });
});
