// The global options' keys come from GLOBAL_FLAGS alone (core/global-flags.ts): the key flagKey gives a flag at run
// time (and FlagKey at the type level, the same rules) must be the one commander gives its value.
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { GLOBAL_FLAGS, flagKey } from '../../src/core/global-flags.js';
import { globalValues } from '../../src/core/global-options.js';

describe('global flags', () => {
  it("each flag's key is commander's name for its value", () => {
    for (const { flags } of GLOBAL_FLAGS)
      expect([flags, flagKey(flags)]).toEqual([flags, new Option(flags).attributeName()]);
  });

  it("globalValues keeps the global options of a command's values, every key present", () => {
    const values = globalValues({ maxRetries: 3, color: false, model: 'svc-4' });
    expect(Object.keys(values)).toHaveLength(GLOBAL_FLAGS.length);
    expect(values).toMatchObject({ maxRetries: 3, color: false, profile: undefined });
    expect(values).not.toHaveProperty('model');
  });
});
