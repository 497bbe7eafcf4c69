import { afterEach, describe, expect, it } from 'vitest';
import { RecordState } from '../engine/record-state.js';
import { compileWorkflowDocument } from './compile-actions.js';
import type { WorkflowDocument } from './dsl-types.js';
import { evaluate, parseExpression } from './expression/index.js';
import { getVariable, setVariable } from './variables.js';

const doc = (actions: unknown[]): WorkflowDocument => ({
  name: 'test',
  trigger: { kind: 'OnConversationStart', actions },
});

const polluted = () =>
  ['x', 'isAdmin', 'y'].filter((key) => (Object.prototype as Record<string, unknown>)[key] !== undefined);

afterEach(() => {
  // A failing run must not leave the rest of the suite with a polluted prototype.
  for (const key of ['x', 'isAdmin', 'y']) delete (Object.prototype as Record<string, unknown>)[key];
});

describe('variable paths and names never reach the object machinery', () => {
  it('refuses __proto__, constructor and prototype segments where a workflow writes them', () => {
    const { problems } = compileWorkflowDocument(
      doc([
        { kind: 'SetVariable', variable: 'Local.__proto__.x', value: 1 },
        { kind: 'SetVariable', variable: 'Global.__proto__.isAdmin', value: true },
        {
          kind: 'SetMultipleVariables',
          variables: [{ variable: 'Local.constructor.prototype.y', value: 1 }],
        },
        { kind: 'Foreach', source: '=[1]', itemName: '__proto__', actions: [] },
      ]),
    );
    const errors = problems.filter((p) => p.severity === 'error').map((p) => p.message);
    expect(errors).toHaveLength(4);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringContaining('"Local.__proto__.x" uses "__proto__"'),
        expect.stringContaining('"Global.__proto__.isAdmin" uses "__proto__"'),
        expect.stringContaining('"Local.constructor.prototype.y" uses "constructor"'),
        expect.stringContaining('variable "__proto__" uses "__proto__"'),
      ]),
    );
    expect(polluted()).toEqual([]);
  });

  it('refuses them at run time too (a name built by a caller, an output variable)', () => {
    const state = new RecordState({});
    expect(() => setVariable(state, 'Global.__proto__.isAdmin', true)).toThrow(/uses "__proto__"/);
    expect(() => setVariable(state, 'Local.a.Prototype', 1)).toThrow(/uses "Prototype"/);
    expect(() => getVariable(state, 'Local.constructor')).toThrow(/uses "constructor"/);
    expect(polluted()).toEqual([]);
    // Inherited properties are not variables: `toString` of an empty scope is blank.
    setVariable(state, 'Local.a', 1);
    expect(getVariable(state, 'Local.toString')).toBeUndefined();
    // A scope named `__proto__` is an own entry, not the record's prototype.
    state.set('__proto__', { x: 1 });
    expect(state.has('__proto__')).toBe(true);
    expect(Object.getPrototypeOf(state)).toBe(RecordState.prototype);
  });

  it('runs a workflow that tries it without polluting anything', async () => {
    const { workflow, problems } = compileWorkflowDocument(
      doc([{ kind: 'SendActivity', activity: { text: '=Text(Local.__proto__)' } }]),
    );
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const result = await workflow!.run('hi').result;
    expect(result.status).toBe('completed');
    expect(polluted()).toEqual([]);
  });

  it('looks functions up as own names: Constructor("x") is unknown, not Object', () => {
    const run = (text: string) => evaluate(parseExpression(text), () => undefined);
    expect(() => run('Constructor("x")')).toThrow(/unknown function Constructor\(\)/);
    expect(() => run('__proto__(1)')).toThrow(/unknown function __proto__\(\)/);
    expect(() => run('hasOwnProperty("x")')).toThrow(/unknown function hasOwnProperty\(\)/);
    expect(() => run('toString()')).toThrow(/unknown function toString\(\)/);
  });
});
