import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Run the local emulator of the whole API',
  order: 340,
};

export const children: CommandNode[] = [
  { name: 'serve', summary: 'Serve the emulator on a local port until stopped', load: () => import('./serve.js') },
  {
    name: 'record',
    summary: 'Record real traffic to a fixture for `serve --replay`: a local proxy to the upstream API',
    load: () => import('./record.js'),
  },
  {
    name: 'reset',
    summary: "Clear a running emulator's state and re-apply its fixtures",
    load: () => import('./reset.js'),
  },
  {
    name: 'trigger',
    summary: 'Make an event happen now: incoming-call, video-done, deferred-ready, file-expired',
    load: () => import('./trigger.js'),
  },
  {
    name: 'requests',
    summary: 'Print the request log of a running emulator (--follow to keep printing)',
    load: () => import('./requests.js'),
  },
  {
    name: 'sessions',
    summary: 'List the WebSocket sessions of a running emulator: events each way and how each ended',
    load: () => import('./sessions.js'),
  },
  {
    name: 'fault',
    summary: 'Inject faults into a running emulator (add, list, clear)',
    children: () => [
      {
        name: 'add',
        summary: 'Add a fault: 429:retry-after=1:times=2, 500, drop:after=3, slow:ms=500',
        load: () => import('./fault-add.js'),
      },
      {
        name: 'list',
        summary: 'List the faults still armed on a running emulator',
        load: () => import('./fault-list.js'),
      },
      { name: 'clear', summary: 'Remove every fault from a running emulator', load: () => import('./fault-clear.js') },
    ],
  },
];
