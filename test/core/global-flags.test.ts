// The global options' keys come from GLOBAL_FLAGS alone (core/global-flags.ts): the key a flag gets at run time
// (option-spec's attributeName(flagName()); FlagKey at the type level, the same rules) must be commander's.
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { GLOBAL_FLAGS } from '../../src/core/global-flags.js';
import { attributeName, flagName } from '../../src/core/option-spec.js';
import { globalValues } from '../../src/core/global-options.js';

describe('global flags', () => {
  it("each flag's key is commander's name for its value", () => {
    for (const { flags } of GLOBAL_FLAGS)
      expect([flags, attributeName(flagName(flags))]).toEqual([flags, new Option(flags).attributeName()]);
  });

  it("globalValues keeps the global options of a command's values, every key present", () => {
    const values = globalValues({ maxRetries: 3, color: false, model: 'svc-4' });
    expect(Object.keys(values)).toHaveLength(GLOBAL_FLAGS.length);
    expect(values).toMatchObject({ maxRetries: 3, color: false, profile: undefined });
    expect(values).not.toHaveProperty('model');
  });
});
