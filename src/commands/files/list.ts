import { defineCommand } from '../../cmdutil/command.js';
import { oneOf } from '../../core/validate.js';
import { firstPageQuery, listRows, pageFlags } from '../../cmdutil/paginate.js';
import type { FileObject } from '../../endpoints/files.js';
import { FILES } from '../../endpoints/resources.js';
import { fileColumns } from './shared.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const { 'query.order': ORDER, 'query.sort_by': SORT_BY } = OPERATIONS.listFiles.fields;
const ORDERS = ORDER.enum;
const SORT_FIELDS = SORT_BY.enum;

export default defineCommand({
  jsonFields: FILES.fields,
  description:
    'One page by default; --page-token continues from the next_page_token of a previous page, --all prints ' +
    'every page as it arrives. --filter takes an AIP-160 expression over name (or file_name, fuzzy with ' +
    '`:`), file_id, size_bytes, content_type, created_at, expires_at (RFC 3339), upload_status and ' +
    'user_defined_id, with = != > >= < <= :, AND, OR, NOT and parentheses.',
  options: [
    ...pageFlags(
      FILES,
      "the files after this file id (the API's `after`, kept for compatibility; --page-token is the cursor)",
    ),
    { flags: '--order <order>', description: 'asc or desc (default desc)', parse: oneOf(ORDERS), choices: ORDERS },
    {
      flags: '--sort-by <field>',
      description: 'created_at (default), filename or size',
      parse: oneOf(SORT_FIELDS),
      choices: SORT_FIELDS,
    },
    { flags: '--filter <expr>', description: 'AIP-160 filter, e.g. \'name:"report" AND size_bytes > 1000\'' },
  ],
  examples: [
    'svc files list',
    'svc files list --all --sort-by size --order asc',
    'svc files list --filter \'content_type = "pdf" AND NOT name:"draft"\'',
    'svc files list --json --jq .id',
  ],
  async run(ctx, _args, opts) {
    const query = { ...firstPageQuery(FILES, opts), order: opts.order, sort_by: opts.sortBy, filter: opts.filter };
    return listRows<FileObject>(ctx, FILES, query, opts, { columns: fileColumns });
  },
});
