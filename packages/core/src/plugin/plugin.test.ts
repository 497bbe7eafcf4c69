import { describe, expect, it } from 'vitest';
import { PluginError } from '../errors/error-classes.js';
import { definePlugin, type RafPlugin } from './plugin.js';

describe('definePlugin', () => {
  it('accepts a v1 plugin', () => {
    const plugin: RafPlugin = { specificationVersion: 'v1', packageName: '@raf/web', toolKinds: {} };
    expect(definePlugin(plugin)).toBe(plugin);
  });

  it('refuses another specification version or a missing package name', () => {
    expect(() =>
      definePlugin({ specificationVersion: 'v2', packageName: 'x' } as unknown as RafPlugin),
    ).toThrow(/specificationVersion "v2"; this RAF supports "v1"/);
    expect(() => definePlugin({ specificationVersion: 'v1' } as RafPlugin)).toThrow(PluginError);
  });
});
