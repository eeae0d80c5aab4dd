import type { InputItem } from '../../endpoints/responses.js';
import { INPUT_ITEMS } from '../../endpoints/resources.js';
import { defineCommand } from '../../cmdutil/command.js';
import { oneOf } from '../../core/validate.js';
import { firstPageQuery, listRows, pageFlags } from '../../cmdutil/paginate.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const ORDERS = OPERATIONS.listResponseInputItems.fields['query.order'].enum;

/** The readable text of an input item. */
export function itemText(it: InputItem): string {
  const content = it.content as unknown;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: Record<string, unknown>) =>
        typeof p.text === 'string'
          ? p.text
          : p.type === 'input_image'
            ? '[image]'
            : p.type === 'input_file'
              ? `[file ${String(p.file_id)}]`
              : '',
      )
      .filter(Boolean)
      .join(' ');
  }
  if (it.type === 'function_call') return `${String(it.name)}(${String(it.arguments ?? '')})`;
  if (it.type === 'function_call_output') return String(it.output ?? '');
  if (it.type === 'reasoning')
    return ((it.summary as { text: string }[] | undefined) ?? []).map((s) => s.text).join(' ');
  if (it.type === 'compaction') return '[compacted conversation]';
  return '';
}

export default defineCommand({
  jsonFields: INPUT_ITEMS.fields,
  description:
    'The items the model saw for this response, earlier turns of a continued conversation included. One page ' +
    'by default; --page-token (or --after, the same: an item id) continues from a previous page, --all ' +
    'prints every page as it arrives. --json: one item per line as the API sent it, then the next_page_token ' +
    'record when another page exists.',
  args: [{ name: 'id', description: 'response id', required: true }],
  options: [
    ...pageFlags(INPUT_ITEMS, 'start after this item id (the last_id of the previous page; the same as --page-token)'),
    {
      flags: '--order <order>',
      description: 'asc (default) or desc',
      parse: oneOf(ORDERS),
      choices: ORDERS,
    },
  ],
  examples: ['svc responses items 2b6c…', 'svc responses items 2b6c… --all --json > history.jsonl'],
  async run(ctx, [id], opts) {
    const query = { ...firstPageQuery(INPUT_ITEMS, opts), order: opts.order };
    return listRows<InputItem>(ctx, INPUT_ITEMS, query, opts, {
      under: id,
      columns: (tty) => [
        { header: 'ID', get: (it) => it.id },
        { header: 'TYPE', get: (it) => it.type },
        { header: 'ROLE', get: (it) => it.role ?? '' },
        { header: 'TEXT', get: (it) => truncate(itemText(it).replace(/\s+/g, ' ').trim(), tty ? 80 : 2000) },
      ],
    });
  },
});

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
