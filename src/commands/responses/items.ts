import { allInputItems, listInputItems, type InputItem } from '../../api/responses.js';
import { defineCommand } from '../../core/command.js';
import { integer, oneOf } from '../../core/validate.js';

interface Opts {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
  all?: boolean;
}

/** The readable text of an input item. */
export function itemText(it: InputItem): string {
  const content = it.content as unknown;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: Record<string, unknown>) => (typeof p.text === 'string' ? p.text : p.type === 'input_image' ? '[image]' : p.type === 'input_file' ? `[file ${String(p.file_id)}]` : ''))
      .filter(Boolean)
      .join(' ');
  }
  if (it.type === 'function_call') return `${String(it.name)}(${String(it.arguments ?? '')})`;
  if (it.type === 'function_call_output') return String(it.output ?? '');
  if (it.type === 'reasoning') return ((it.summary as { text: string }[] | undefined) ?? []).map((s) => s.text).join(' ');
  if (it.type === 'compaction') return '[compacted conversation]';
  return '';
}

export default defineCommand<Opts>({
  summary: 'List the input items of a stored response',
  description: 'The items the model saw for this response, earlier turns of a continued conversation included. One page (--limit, --after), or every page with --all (following the cursor). --json: one item per line as the API sent it.',
  args: [{ name: 'id', description: 'response id', required: true }],
  options: [
    { flags: '--limit <n>', description: 'items per page (1-100, default 20)', parse: integer({ min: 1, max: 100 }) },
    { flags: '--order <order>', description: 'asc (default) or desc', parse: oneOf(['asc', 'desc'] as const), choices: ['asc', 'desc'] },
    { flags: '--after <item-id>', description: 'start after this item id (the cursor)' },
    { flags: '--all', description: 'every page, following the cursor' },
  ],
  examples: ['svc responses items 2b6c…', 'svc responses items 2b6c… --all --json > history.jsonl'],
  async run(ctx, [id], opts) {
    const http = await ctx.http();
    const q = { limit: opts.limit, order: opts.order, after: opts.after };
    const items: InputItem[] = [];
    let more: string | undefined;
    if (opts.all) {
      for await (const it of allInputItems(http, id, q)) {
        if (ctx.out.json) ctx.out.printJsonLine(it);
        else items.push(it);
      }
    } else {
      const page = await listInputItems(http, id, q);
      if (ctx.out.json) for (const it of page.data) ctx.out.printJsonLine(it);
      else items.push(...page.data);
      if (page.has_more && page.last_id) more = page.last_id;
    }
    if (ctx.out.json) {
      return 0;
    }
    await ctx.out.table(
      items,
      [
        { header: 'ID', get: (it) => it.id },
        { header: 'TYPE', get: (it) => it.type },
        { header: 'ROLE', get: (it) => it.role ?? '' },
        { header: 'TEXT', get: (it) => truncate(itemText(it).replace(/\s+/g, ' ').trim(), ctx.out.stdoutIsTTY ? 80 : 2000) },
      ],
      { emptyMessage: 'no input items' },
    );
    if (more) ctx.out.info(`more items: --after ${more} (or --all)`);
    return 0;
  },
});

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
