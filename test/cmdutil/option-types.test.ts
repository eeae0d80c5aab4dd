// `run`'s opts are typed from the option specs (core/option-spec OptionValues, cmdutil/command defineCommand): these
// checks are compiled by `npm run typecheck`; a case that stops failing to compile fails it (`@ts-expect-error`).
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineCommand } from '../../src/cmdutil/command.js';
import { forceFlags, modelFlag, SAMPLING, sampling } from '../../src/cmdutil/flag-sets.js';
import type { OptionValues } from '../../src/core/option-spec.js';
import { integer, oneOf, repeatable } from '../../src/core/validate.js';

const SIZES = ['small', 'large'] as const;

describe('option types from option specs', () => {
  it('infers each key and value from the flags, parse, choices and default', () => {
    const spec = defineCommand({
      options: [
        { flags: '--limit <n>', description: 'page size', parse: integer({ min: 1, max: 100 }) },
        { flags: '--size <size>', description: 'size', parse: oneOf(SIZES) },
        { flags: '--shape <shape>', description: 'shape', choices: ['round', 'square'] },
        { flags: '--tag <tag>', description: 'tags', parse: repeatable() },
        { flags: '--max-tokens <n>', description: 'tokens', default: '16' },
        { flags: '--names <names...>', description: 'names' },
        { flags: '--timestamps [file]', description: 'a file or stdout' },
        { flags: '-y, --yes', description: 'do not ask' },
        { flags: '--no-stream', description: 'wait' },
        { flags: '--save <name>', description: 'save as' },
        { flags: '--no-save', description: 'keep nothing' },
      ],
      async run(_ctx, _args, opts) {
        expectTypeOf(opts).toEqualTypeOf<{
          maxTokens: string;
          limit?: number;
          size?: 'small' | 'large';
          shape?: 'round' | 'square';
          tag?: string[];
          names?: string[];
          timestamps?: string | true;
          yes?: boolean;
          stream: boolean;
          save?: string | false;
        }>();
        // @ts-expect-error: a flag the command does not take is no key (breaks if opts widen to any)
        opts.limt;
        // @ts-expect-error: --limit is a number, not a string
        opts.limit?.toUpperCase();
        return 0;
      },
    });
    expect(spec.options?.map((o) => o.flags)).toContain('--no-stream');
  });

  it('infers through the shared flag sets when spread', () => {
    const spec = defineCommand({
      options: [modelFlag(), ...sampling(['temperature', 'stop']), SAMPLING.seed, ...forceFlags()],
      async run(_ctx, _args, opts) {
        expectTypeOf(opts).toEqualTypeOf<{
          model?: string;
          temperature?: number;
          stop?: string[];
          seed?: number;
          force?: boolean;
          clobber?: boolean;
        }>();
        return 0;
      },
    });
    expect(spec.options).toHaveLength(6);
  });

  it('gives no key for a spec typed only as OptionSpec (no silent any)', () => {
    expectTypeOf<keyof OptionValues<{ flags: string; description: string }[]>>().toEqualTypeOf<never>();
  });
});
