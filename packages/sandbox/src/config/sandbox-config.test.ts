import { ConfigError } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { formatByteSize, parseByteSize } from './byte-size.js';
import {
  mergeSandboxConfig,
  parseSandboxConfig,
  safeParseSandboxConfig,
  sandboxConfigSchema,
} from './sandbox-config.js';

describe('sandbox config', () => {
  it('reads the upstream keys in either spelling, sizes the Docker way', () => {
    const snake = parseSandboxConfig({
      backend: 'process',
      timeout_secs: 10,
      memory_limit: '512m',
      cpus: '1.5',
      pids_limit: 64,
      default_language: 'py',
    });
    const camel = parseSandboxConfig({
      backend: 'process',
      timeoutSecs: 10,
      memoryLimit: 536870912,
      cpus: '1.5',
      pidsLimit: 64,
      defaultLanguage: 'python',
    });
    expect(snake).toEqual(camel);
    expect(snake).toEqual({
      backend: 'process',
      timeoutSecs: 10,
      memoryLimit: 512 * 1024 * 1024,
      cpus: '1.5',
      pidsLimit: 64,
      defaultLanguage: 'python',
    });
  });

  it('parses and prints byte sizes', () => {
    expect(['512m', '1g', '64KiB', '1.5m', '2048', '1 GB'].map((s) => parseByteSize(s))).toEqual([
      536870912, 1073741824, 65536, 1572864, 2048, 1073741824,
    ]);
    expect(parseByteSize('lots')).toBeUndefined();
    expect(parseByteSize('0')).toBeUndefined();
    expect([268435456, 65536, 1000].map(formatByteSize)).toEqual(['256m', '64k', '1000']);
  });

  it('names each bad field as written, all at once', () => {
    expect(
      safeParseSandboxConfig({ timeout_secs: 0, memoryLimit: '1k', languages: ['cobol'], network: 'yes' }),
    ).toEqual({
      success: false,
      error:
        'config.timeout_secs: Too small: expected number to be >0; config.memoryLimit: memory_limit must be at least 8388608 bytes; config.languages.0: unknown language "cobol"; use javascript, python or shell; config.network: Invalid input: expected boolean, received string',
    });
    expect(() => parseSandboxConfig({ timeout_secs: 1, timeoutSecs: 2 }, 'sandbox')).toThrow(
      new ConfigError("sandbox: 'timeoutSecs' and 'timeout_secs' are the same setting; keep one"),
    );
    expect(safeParseSandboxConfig(['x'])).toEqual({
      success: false,
      error: 'config: expected a map of sandbox settings',
    });
  });

  it('lists unknown keys for a warning instead of failing (upstream files carry docker keys)', () => {
    expect(safeParseSandboxConfig({ image: 'python:3.12', timeout_secs: 5 }, 'sandbox')).toEqual({
      success: true,
      config: { timeoutSecs: 5 },
      unknownKeys: ['sandbox.image'],
    });
  });

  it('merges field by field; the tool wins', () => {
    const defaults = parseSandboxConfig({ timeout_secs: 60, memory_limit: '1g', network: true });
    const tool = parseSandboxConfig({ timeoutSecs: 5, network: false });
    expect(mergeSandboxConfig(defaults, tool)).toEqual({
      timeoutSecs: 5,
      memoryLimit: 1024 ** 3,
      network: false,
    });
  });

  it('exports a zod schema that accepts both spellings (for the plugin contract)', () => {
    expect(sandboxConfigSchema.parse({ pids_limit: 8, outputLimit: '1m' })).toEqual({
      pidsLimit: 8,
      outputLimit: 1024 * 1024,
    });
    expect(sandboxConfigSchema.safeParse({ timeout_secs: -1 }).success).toBe(false);
  });
});
