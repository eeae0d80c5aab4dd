import type { FileObject } from '../../endpoints/files.js';
import { formatBytes, formatUnixTime, type Column } from '../../term/output.js';

export function fileColumns(tty: boolean): Column<FileObject>[] {
  return [
    { header: 'ID', get: (f) => f.id },
    { header: 'FILENAME', get: (f) => f.filename },
    { header: 'SIZE', get: (f) => (tty ? formatBytes(f.bytes) : f.bytes), align: 'right', optional: 2 },
    { header: 'CREATED', get: (f) => formatUnixTime(f.created_at), keep: true, optional: 3 },
    { header: 'EXPIRES', get: (f) => formatUnixTime(f.expires_at), keep: true, optional: 1 },
  ];
}

export function fileDetails(f: FileObject): [string, unknown][] {
  const pairs: [string, unknown][] = [];
  for (const [k, v] of Object.entries(f)) {
    if (k === 'created_at' || k === 'expires_at')
      pairs.push([k, v === null || v === undefined ? v : formatUnixTime(v as number)]);
    else pairs.push([k, v]);
  }
  return pairs;
}
