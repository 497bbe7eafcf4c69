import { z } from 'zod';
import { apiSchemas } from './schemas.js';

const json = (name: string) => ({
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
});
const errors = {
  '400': { description: 'A field is wrong (the message names it)', ...json('Error') },
  '401': { description: 'No valid bearer token', ...json('Error') },
  '404': { description: 'No such run, session or agent (or another tenant’s)', ...json('Error') },
};
const idParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

let cached: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document of `/v1`, its schemas generated from the zod schemas the API validates with. */
export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  // One document of every registered schema, each referring to the others by its component.
  const { schemas } = z.toJSONSchema(apiSchemas, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
  });
  for (const schema of Object.values(schemas) as Record<string, unknown>[]) {
    delete schema.$schema;
    delete schema.$id;
  }
  cached = {
    openapi: '3.1.0',
    info: { title: 'RAF serve', version: '1', description: 'Agents as an HTTP service (raf serve).' },
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/agents': {
        get: {
          summary: 'The served agents',
          responses: { '200': { description: 'The agents', ...json('AgentList') }, '401': errors['401'] },
        },
      },
      '/v1/agents/{name}/runs': {
        post: {
          summary: 'Start a run (a turn) on an agent',
          parameters: [idParam('name', 'The agent')],
          requestBody: { required: true, ...json('StartRun') },
          responses: {
            '201': {
              description: 'The run started; its events follow at /v1/runs/{runId}/events',
              ...json('StartedRun'),
            },
            '409': {
              description: 'The session has a run in progress or waits for approvals',
              ...json('Error'),
            },
            '413': { description: 'The body is too large', ...json('Error') },
            '429': { description: 'Too many runs at once for this token', ...json('Error') },
            ...errors,
          },
        },
      },
      '/v1/runs/{id}': {
        get: {
          summary: 'The run’s state',
          parameters: [idParam('id', 'The run')],
          responses: { '200': { description: 'The run', ...json('Run') }, ...errors },
        },
      },
      '/v1/runs/{id}/events': {
        get: {
          summary:
            'The run’s events (server-sent events; `id:` is the sequence number, `Last-Event-ID` resumes after it)',
          parameters: [
            idParam('id', 'The run'),
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'Resume after this event',
            },
          ],
          responses: {
            '200': {
              description:
                'Each `data:` is one `raf run --json` line; the stream ends when the run pauses or stops',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            ...errors,
          },
        },
      },
      '/v1/runs/{id}/approvals': {
        post: {
          summary: 'Answer a paused run’s approvals (it resumes)',
          parameters: [idParam('id', 'The run')],
          requestBody: { required: true, ...json('Approvals') },
          responses: {
            '202': { description: 'The run resumed', ...json('StartedRun') },
            '409': {
              description: 'The run is not waiting, or its approvals were already answered',
              ...json('Error'),
            },
            ...errors,
          },
        },
      },
      '/v1/runs/{id}/answers': {
        post: {
          summary:
            'Answer the questions a running call asks (MCP elicitations: `input-request` events, `pendingQuestions`)',
          parameters: [idParam('id', 'The run')],
          requestBody: { required: true, ...json('Answers') },
          responses: {
            '202': { description: 'The answers reached the calls waiting for them', ...json('StartedRun') },
            '409': { description: 'A question was answered already or is no longer asked', ...json('Error') },
            ...errors,
          },
        },
      },
      '/v1/runs/{id}/cancel': {
        post: {
          summary: 'Cancel the run',
          parameters: [idParam('id', 'The run')],
          responses: { '200': { description: 'The run', ...json('Run') }, ...errors },
        },
      },
      '/v1/sessions/{id}': {
        get: {
          summary: 'The session',
          parameters: [idParam('id', 'The session')],
          responses: { '200': { description: 'The session', ...json('Session') }, ...errors },
        },
        delete: {
          summary: 'Delete the session',
          parameters: [idParam('id', 'The session')],
          responses: {
            '204': { description: 'Deleted' },
            '409': { description: 'A run holds it', ...json('Error') },
            ...errors,
          },
        },
      },
      '/healthz': {
        get: { summary: 'The process answers', security: [], responses: { '200': { description: 'ok' } } },
      },
      '/readyz': {
        get: {
          summary: 'The store answers',
          security: [],
          responses: { '200': { description: 'ready' }, '503': { description: 'not ready' } },
        },
      },
    },
  };
  return cached;
}
