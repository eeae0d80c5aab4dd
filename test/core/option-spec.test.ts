// A flag's name, key and value as commander reads them (src/core/option-spec.ts flagName, attributeName, flagValue,
// which read svc's own simple command lines and fill request bodies without commander), checked against commander's
// Option for every flag of every command and every global flag.
import { Option } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { GLOBAL_OPTIONS } from '../../src/core/global-options.js';
import { type OptionSpec, attributeName, flagName, flagValue } from '../../src/core/option-spec.js';
import { optionKey } from '../../src/core/request-table.js';
import { loadCommandTree } from '../helpers/command-tree.js';

let specs: OptionSpec[];
beforeAll(async () => {
  const commands = (await loadCommandTree()).flatMap(({ spec }) => spec?.options ?? []);
  specs = [...GLOBAL_OPTIONS, ...commands];
});

describe('a flag read as commander reads it', () => {
  it('has commander’s name, attribute name and kind of value for every flag of svc', () => {
    const flags = [...new Set(specs.map((s) => s.flags))];
    expect(flags.length).toBeGreaterThan(200);
    for (const f of flags) {
      const option = new Option(f);
      // (commander reads `<rpm[,tpm]>` as a required value)
      const kind = option.variadic ? undefined : option.required ? '<' : option.optional ? undefined : '';
      expect({
        f,
        name: flagName(f),
        key: attributeName(flagName(f)),
        value: flagValue(f),
        optionKey: optionKey(f),
      }).toEqual({
        f,
        name: option.name(),
        key: option.attributeName(),
        value: kind,
        optionKey: option.attributeName(),
      });
    }
  });

  it('reads the forms commander takes', () => {
    expect(flagName('-a, --attach <file|url|->')).toBe('attach');
    expect(flagValue('-a, --attach <file|url|->')).toBe('<');
    expect(flagName('-v')).toBe('v');
    expect(attributeName(flagName('--no-max-output-tokens'))).toBe('maxOutputTokens');
    expect(flagValue('--tool <files...>')).toBeUndefined();
    expect(flagValue('--save [name]')).toBeUndefined();
    expect(flagValue('--json')).toBe('');
  });
});
