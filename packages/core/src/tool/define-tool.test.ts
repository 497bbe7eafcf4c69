import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isScopeTool } from '../scope/scope-tool.js';
import { defineTool } from './define-tool.js';
import { type ITool, toolRequiresApproval } from './tool.js';
import { toolSuccess } from './tool-result.js';

const context = { signal: new AbortController().signal, callId: 'c1' };

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string().describe('City name'), days: z.number().int().min(1).default(1) }),
  execute: ({ city, days }) => toolSuccess({ city, days }),
});

describe('defineTool', () => {
  it('turns the zod schema into the JSON Schema the model receives', () => {
    expect(weather.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', minimum: 1, default: 1, maximum: expect.any(Number) },
      },
      required: ['city'],
    });
  });

  it('parses arguments (with defaults) before execute', async () => {
    expect(await weather.execute({ city: 'Paris' }, context)).toEqual({
      ok: true,
      data: { city: 'Paris', days: 1 },
    });
  });

  it('answers invalid arguments with a ToolResult error the model can correct', async () => {
    const result = await weather.execute({ city: 3 }, context);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^Invalid arguments for get_weather: city: /);
  });

  it('consults requiresApproval per call with parsed arguments', async () => {
    const tool = defineTool({
      name: 'pay',
      description: 'Pay',
      parameters: z.object({ amount: z.number() }),
      requiresApproval: (args) => args === undefined || args.amount > 100,
      execute: () => toolSuccess(),
    });
    expect(await toolRequiresApproval(tool, { amount: 5 })).toBe(false);
    expect(await toolRequiresApproval(tool, { amount: 500 })).toBe(true);
    expect(await toolRequiresApproval(tool)).toBe(true);
    expect(await toolRequiresApproval(weather, { city: 'x' })).toBe(false);
  });

  it('refuses names the model APIs reject', () => {
    expect(() =>
      defineTool({
        name: 'bad name',
        description: '',
        parameters: z.object({}),
        execute: () => toolSuccess(),
      }),
    ).toThrow(/must be 1-64 letters/);
  });

  it('is not a scope tool unless it has createScoped', () => {
    expect(isScopeTool(weather)).toBe(false);
    const scoped: ITool = Object.assign({}, weather, { createScoped: () => weather });
    expect(isScopeTool(scoped)).toBe(true);
  });
});
