// `--json FIELD,FIELD`: which word after --json is a field list, the check of the names against the documented
// fields of what the command prints (its spec's jsonFields, from endpoints/json-fields.ts: generated from the API
// document); Output prints only them (term/json-fields.ts).
import { UsageError } from '../core/errors.js';

/** A field list: names of lowercase letters, digits, `_` and `.` (a nested field), separated by commas. */
const FIELD_LIST = /^[a-z_][a-z0-9_.]*(,[a-z_][a-z0-9_.]*)*$/;

/** What the command line says of --json: the argv without the field list, and the fields when one was given. */
export interface JsonFieldsSplit {
  argv: string[];
  fields?: string[];
}

/** What decides whether the word after --json is a field list. */
export interface JsonFieldsRule {
  /** how many command words (`models list`) argv holds */
  pathWords: number;
  /** the global flags that take a value (their value is not a command word) */
  globalsWithValue: ReadonlySet<string>;
  /** the root's command names (`svc --json models list`: `models` is the command) */
  rootNames: ReadonlySet<string>;
  /** the command takes positional arguments */
  takesArgs: boolean;
  /** the command's documented fields (undefined: it prints nothing documented) */
  documented?: ReadonlySet<string>;
}

/**
 * The rule (docs/scripting.md): `--json=LIST` is always a field list; `--json WORD` takes WORD as one when it looks
 * like one and, before the command's words, is not a command's name; after them, when the command takes no positional
 * arguments, or WORD has a comma, or each of its names is a documented field. Otherwise WORD stays where it was.
 */
export function splitJsonFields(argv: readonly string[], rule: JsonFieldsRule): JsonFieldsSplit {
  const out: string[] = [];
  let fields: string[] | undefined;
  let pathLeft = rule.pathWords;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (word.startsWith('--json=')) {
      fields = listOf(word.slice('--json='.length));
      out.push('--json');
      continue;
    }
    out.push(word);
    if (word === '--json') {
      const next = argv[i + 1];
      if (next !== undefined && takesFieldList(next, pathLeft > 0, rule)) {
        fields = listOf(next);
        i++;
      }
    } else if (rule.globalsWithValue.has(word)) {
      if (i + 1 < argv.length) out.push(argv[++i]!);
    } else if (!word.startsWith('-') && pathLeft > 0) {
      pathLeft--;
    }
  }
  return { argv: out, fields };
}

/** Whether a word reads as a field list (`id,name`). */
export const isFieldList = (word: string): boolean => FIELD_LIST.test(word);

function takesFieldList(word: string, beforeCommand: boolean, rule: JsonFieldsRule): boolean {
  if (!FIELD_LIST.test(word)) return false;
  if (beforeCommand) return !rule.rootNames.has(word);
  if (!rule.takesArgs || word.includes(',')) return true;
  return !!rule.documented && listOf(word).every((f) => rule.documented!.has(topName(f)));
}

function listOf(value: string): string[] {
  if (!FIELD_LIST.test(value)) {
    throw new UsageError(`--json: "${value}" is not a field list (names separated by commas, e.g. --json id,name)`);
  }
  return value.split(',');
}

const topName = (field: string) => field.split('.', 1)[0]!;

/** Exit 2 before anything is sent when a field is not one the command prints, naming the valid ones. */
export function checkFields(fields: readonly string[], documented: ReadonlySet<string> | undefined, command: string) {
  if (!documented) {
    throw new UsageError(
      `--json ${fields.join(',')}: svc ${command} prints no documented resource to choose fields from ` +
        '(--json alone prints everything; --jq selects from it)',
    );
  }
  const unknown = fields.filter((f) => !documented.has(topName(f)));
  if (unknown.length) {
    throw new UsageError(
      `--json: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `"${f}"`).join(', ')} for ` +
        `svc ${command}; valid: ${[...documented].sort().join(', ')}`,
    );
  }
}
