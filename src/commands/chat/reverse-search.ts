// Ctrl-R in the REPL: a reverse incremental search of the input history, as bash's. Node's readline has none, so
// its key handler (`_ttyWrite`, internal but stable since Node 10) is wrapped: while searching, typed text narrows
// the search, Ctrl-R goes to the next older match, Backspace widens it, Ctrl-G or Escape gives the line back, Enter
// runs the match, and any other key takes the match into the line and acts as usual.
type Key = { name?: string; ctrl?: boolean; meta?: boolean; sequence?: string };
interface ReadlineInternals {
  line: string;
  cursor: number;
  history: string[];
  getPrompt(): string;
  setPrompt(p: string): void;
  _refreshLine(): void;
  _ttyWrite(s: string | undefined, key: Key | undefined): void;
}

export function addReverseSearch(rl: import('node:readline').Interface): void {
  const r = rl as unknown as ReadlineInternals;
  const original = r._ttyWrite.bind(r);
  let search: { query: string; index: number; prompt: string; line: string } | undefined;

  const show = (failed = false) => {
    if (!search) return;
    r.setPrompt(`(${failed ? 'failed ' : ''}reverse-i-search)'${search.query}': `);
    r.line = search.index >= 0 ? (r.history[search.index] ?? '') : '';
    r.cursor = r.line.length;
    r._refreshLine();
  };
  /** the first entry at `from` or older that holds the query */
  const find = (from: number) => {
    if (!search) return;
    for (let i = from; i < r.history.length; i++)
      if (r.history[i]!.includes(search.query)) {
        search.index = i;
        return show();
      }
    show(true);
  };
  const leave = (line: string) => {
    if (!search) return;
    r.setPrompt(search.prompt);
    search = undefined;
    r.line = line;
    r.cursor = line.length;
    r._refreshLine();
  };

  r._ttyWrite = (s, key) => {
    if (!search) {
      if (key?.ctrl && key.name === 'r') {
        search = { query: '', index: -1, prompt: r.getPrompt(), line: r.line };
        return show();
      }
      return original(s, key);
    }
    if (key?.ctrl && key.name === 'r') return find(search.index + 1);
    if ((key?.ctrl && key.name === 'g') || key?.name === 'escape') return leave(search.line);
    if (key?.name === 'backspace') {
      search.query = search.query.slice(0, -1);
      return find(0);
    }
    if (s && !key?.ctrl && !key?.meta && ![...s].some((ch) => ch < ' ' || ch === '\x7f')) {
      search.query += s;
      return find(Math.max(search.index, 0));
    }
    leave(search.index >= 0 ? (r.history[search.index] ?? '') : search.line);
    original(s, key);
  };
}
