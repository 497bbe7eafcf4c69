import { describe, expect, it } from 'vitest';
import { dropAbsent, toGbnfSchema } from './gbnf-schema.js';

describe('tool parameters as grammar schemas', () => {
  it('makes optional properties nullable and keeps required ones as they are', () => {
    expect(
      toGbnfSchema({
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path', minLength: 1 },
          limit: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path' },
        limit: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
      },
      additionalProperties: false,
    });
  });

  it('maps what the grammar dialect spells differently: anyOf, type lists, untyped values, $ref, enums', () => {
    expect(
      toGbnfSchema({
        type: 'object',
        properties: {
          mode: { enum: ['raw', 'markdown'] },
          value: {},
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          maybe: { type: ['object', 'null'], properties: { a: { type: 'boolean' } }, required: ['a'] },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          when: { type: 'string', format: 'date' },
          point: { $ref: '#/definitions/Point' },
          free: { type: 'object' },
        },
        required: ['mode', 'value', 'either', 'maybe', 'tags', 'when', 'point', 'free'],
        definitions: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        mode: { enum: ['raw', 'markdown'] },
        value: {
          oneOf: [
            { type: ['string', 'number', 'boolean', 'null'] },
            { type: 'object', additionalProperties: true },
            { type: 'array' },
          ],
        },
        either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        maybe: {
          oneOf: [
            { type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties: false },
            { type: 'null' },
          ],
        },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        when: { type: 'string', format: 'date' },
        point: { $ref: '#/$defs/Point' },
        free: { type: 'object', additionalProperties: true },
      },
      additionalProperties: false,
      $defs: {
        Point: { type: 'object', properties: { x: { type: 'number' } }, additionalProperties: false },
      },
    });
  });

  it('a parameter schema without a type is an object; an unknown $ref any value', () => {
    expect(toGbnfSchema({ properties: { r: { $ref: '#/$defs/Missing' } }, required: ['r'] })).toMatchObject({
      type: 'object',
      properties: { r: { oneOf: expect.any(Array) } },
    });
  });

  it('drops the nulls written for absent optional properties, keeps nulls a schema allows', () => {
    const schema = {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer' },
        note: { type: ['string', 'null'] },
        nested: {
          type: 'object',
          properties: { deep: { type: 'string' } },
        },
        list: { type: 'array', items: { $ref: '#/$defs/Item' } },
      },
      required: ['query'],
      $defs: { Item: { type: 'object', properties: { tag: { type: 'string' } } } },
    };
    expect(
      dropAbsent(
        {
          query: 'tea',
          limit: null,
          note: null,
          nested: { deep: null },
          list: [{ tag: null }, { tag: 'x' }],
          extra: null,
        },
        schema,
      ),
    ).toEqual({ query: 'tea', note: null, nested: {}, list: [{}, { tag: 'x' }], extra: null });
  });
});
