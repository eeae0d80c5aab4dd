// The last stored response of each profile (`svc responses create -c` continues it), kept in the data dir.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../runtime/context.js';
import { dataDir } from '../../core/paths.js';
import { writeJsonFile } from '../../core/json-file.js';

interface LastFile {
  profiles: Record<string, { id: string; model?: string; at: number }>;
}

function file(ctx: Context): string {
  return join(dataDir(ctx.env), 'responses', 'last.json');
}

function read(ctx: Context): LastFile {
  try {
    const data = JSON.parse(readFileSync(file(ctx), 'utf8')) as LastFile;
    return data && typeof data.profiles === 'object' ? data : { profiles: {} };
  } catch {
    return { profiles: {} };
  }
}

function write(ctx: Context, data: LastFile): void {
  writeJsonFile(file(ctx), data, { pretty: true });
}

export function lastResponse(ctx: Context): { id: string; model?: string } | undefined {
  return read(ctx).profiles[ctx.config().profile];
}

export function rememberResponse(ctx: Context, id: string, model?: string): void {
  const data = read(ctx);
  data.profiles[ctx.config().profile] = { id, model, at: Math.floor(Date.now() / 1000) };
  write(ctx, data);
}

/** Forget the remembered id when that response is deleted. */
export function forgetResponse(ctx: Context, id: string): void {
  const data = read(ctx);
  let changed = false;
  for (const [p, v] of Object.entries(data.profiles)) {
    if (v.id === id) {
      delete data.profiles[p];
      changed = true;
    }
  }
  if (changed) write(ctx, data);
}
