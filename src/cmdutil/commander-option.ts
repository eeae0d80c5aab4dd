// A flag as a commander option, for a command line commander reads (cli.ts: help, errors, the rarer syntax). Its
// own module, loaded with commander: a simple command line needs neither (cmdutil/simple-line.ts).
import { Option } from 'commander';
import { longFlag } from './command-options.js';
import type { OptionSpec } from '../core/option-spec.js';

export function makeOption(spec: OptionSpec): Option {
  const opt = new Option(spec.flags, spec.description);
  if (spec.default !== undefined) opt.default(spec.default);
  if (spec.choices) {
    if (spec.parse) opt.argParser((raw: string, prev: unknown) => spec.parse!(raw, longFlag(spec.flags), prev));
    else opt.choices(spec.choices as string[]);
  } else if (spec.parse) {
    opt.argParser((raw: string, prev: unknown) => spec.parse!(raw, longFlag(spec.flags), prev));
  }
  if (spec.hidden) opt.hideHelp();
  if (spec.implies) opt.implies(spec.implies);
  // long helps list flags under headings (Model, Sampling, Output, Tools, Audio …); ungrouped ones under Options
  if (spec.group) opt.helpGroup(`${spec.group}:`);
  return opt;
}
